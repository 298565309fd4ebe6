// per-gpu: one panel per GPU in seed 001's grid, all on one y scale so that
// panels compare at a glance, each with its time-weighted mean.
#include <fmt/format.h>

#include "analysis/stats.h"
#include "render/plot/kinds.h"
#include "render/plot/labels.h"
#include "render/plot/marks.h"
#include "render/plot/page.h"
#include "render/plot/style.h"

namespace gpuwatch::plot::detail {

namespace {
DeviceMetric per_gpu_metric(const PlotOptions& options) {
  return options.metric.value_or(DeviceMetric::MemUsedBytes);
}
}  // namespace

PlotNeeds per_gpu_needs(const PlotOptions& options) {
  const DeviceMetric metric = per_gpu_metric(options);
  PlotNeeds needs;
  needs.line_buckets = line_buckets(options);
  needs.lines = {metric};
  needs.moments = {metric};
  if (const auto ref = reference_metric(metric)) needs.ranges.push_back(*ref);
  return needs;
}

PlotGeometry draw_per_gpu(Canvas& canvas, const PlotRun& run, const PlotOptions& options) {
  const DeviceMetric metric = per_gpu_metric(options);
  const std::optional<Reference> reference = reference_for(run, metric);
  const MetricScale scale =
      metric_scale({&run, 1}, metric, reference ? std::optional(reference->value) : std::nullopt);
  const std::string_view unit = info(metric).unit;
  const std::int64_t origin = time_origin_ns(run);
  const std::vector<Marker> all_markers = event_markers(run.base, origin);

  std::vector<LegendEntry> legend = gpu_entries(run, Swatch::Line);
  legend.push_back({"time-weighted mean", colors::kMuted, Swatch::Line, kDashed});
  if (reference) legend.push_back({std::string(reference->name), colors::kReference, Swatch::Line, kDashed});
  if (!all_markers.empty()) legend.push_back({"event", colors::kEvent, Swatch::Marker, kDotted});

  std::string subtitle = run_subtitle(run);
  if (reference) {
    subtitle += fmt::format(" \u00b7 {} {}", reference->name,
                            format_value(reference->value, info(reference->metric).unit));
  }
  const Page page = draw_page(
      canvas, title_or(options, fmt::format("{} per GPU \u2014 {}", metric_title(metric), run_label(run.base.run))),
      subtitle, legend);

  const std::size_t n = run.devices.size();
  const GridShape shape = seed_grid(n);
  std::vector<Rect> cells = grid_cells(page.body, shape);
  cells.resize(n);
  std::vector<std::optional<Moments>> summaries;
  std::vector<PanelText> texts;
  for (std::size_t i = 0; i < n; ++i) {
    summaries.push_back(run.devices[i].metric(metric).moments);
    PanelText t;
    t.title = device_label(run.base.devices[i].info);
    if (summaries.back()) {
      const std::string mean = fmt::format(" \u00b7 mean {}", format_value(summaries.back()->mean, unit));
      t.shorter_titles = {t.title + mean, t.title};
      t.title += fmt::format("{}, max {}", mean, format_value(summaries.back()->max, unit));
    }
    t.y_title = axis_title(metric_title(metric), scale.unit.symbol);
    t.y_title_short = scale.unit.symbol;
    t.y_lo = scale.range.empty() ? 1 : scale.lo();
    t.y_hi = scale.range.empty() ? 0 : scale.hi();
    t.y_from_zero = from_zero(metric);
    t.show_x_title = i + shape.cols >= n;  // the lowest panel of its column
    texts.push_back(std::move(t));
  }
  XAxisSpec x;
  x.hi = elapsed_end_s(run, origin);
  const std::vector<Frame> frames = layout_frames(canvas, cells, texts, x);

  PlotGeometry geometry;
  geometry.legend = page.legend;
  LineBuilder builder;
  const double shift_s = seconds_between(origin, run.line_origin_ns);
  for (std::size_t i = 0; i < n; ++i) {
    const DeviceInfo& d = run.base.devices[i].info;
    const Frame& f = frames[i];
    draw_frame(canvas, f);
    geometry.panels.push_back(panel_geometry(f, scale.unit.divisor));
    std::vector<Marker> markers;
    for (const Marker& m : all_markers) {
      if (!m.device_index || *m.device_index == d.index) markers.push_back(m);
    }
    if (!summaries[i]) {
      draw_note(canvas, f, fmt::format("no data: GPU {} reported no {}", d.index, info(metric).name));
      continue;
    }
    if (reference) draw_reference_line(canvas, f, reference->value / scale.unit.divisor);
    draw_markers(canvas, f, markers);
    // The mean under the data, so that it never hides them.
    const double mean_y = f.py(summaries[i]->mean / scale.unit.divisor);
    canvas.line(f.area.x, mean_y, f.area.right(), mean_y, colors::kMuted, 1.2, kDashed);
    draw_line(canvas, f, builder.points(run.devices[i].metric(metric).line, shift_s, pixel_columns(f)),
              scale.unit.divisor, series_color(i), series_dash(i));
  }
  return geometry;
}

}  // namespace gpuwatch::plot::detail
