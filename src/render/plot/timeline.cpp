// timeline: what every GPU did over the run, one panel per metric stacked on
// one elapsed-time axis, so that an event lines up across all of them.
#include <fmt/format.h>

#include "render/plot/kinds.h"
#include "render/plot/labels.h"
#include "render/plot/marks.h"
#include "render/plot/page.h"
#include "render/plot/style.h"
#include "render/plot/training_panel.h"

namespace gpuwatch::plot::detail {

namespace {

constexpr DeviceMetric kTimelineMetrics[] = {DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes,
                                             DeviceMetric::PowerWatts, DeviceMetric::TempGpuCelsius,
                                             DeviceMetric::SmClockMhz};

// Below this a panel is too flat to read: the panels go into two columns.
constexpr double kMinStackedPanelHeight = 170;

struct Panel {
  DeviceMetric metric;
  std::optional<Reference> reference;
  MetricScale scale;
};

}  // namespace

PlotNeeds timeline_needs(const PlotOptions& options) {
  PlotNeeds needs;
  needs.line_buckets = line_buckets(options);
  for (const DeviceMetric m : kTimelineMetrics) {
    needs.lines.push_back(m);
    if (const auto ref = reference_metric(m)) needs.ranges.push_back(*ref);
  }
  return needs;
}

namespace {

PanelText gpu_panel_text(const Panel& p) {
  PanelText t;
  t.title = std::string(metric_title(p.metric));
  if (p.reference && !p.scale.range.empty()) {
    t.title += fmt::format("  \u00b7  dashed: {} {}", p.reference->name,
                           format_value(p.reference->value, info(p.reference->metric).unit));
  }
  t.y_title = axis_title(metric_title(p.metric), p.scale.unit.symbol);
  t.y_title_short = p.scale.unit.symbol;
  t.y_lo = p.scale.lo();
  t.y_hi = p.scale.hi();
  t.y_from_zero = from_zero(p.metric);
  return t;
}

std::vector<LegendEntry> timeline_legend(const PlotRun& run, const std::vector<Panel>& panels, bool markers,
                                         const std::vector<TrainingPanel>& training) {
  std::vector<LegendEntry> legend = gpu_entries(run, Swatch::Line);
  bool any_reference = false;
  for (const Panel& p : panels) any_reference = any_reference || (p.reference && !p.scale.range.empty());
  if (any_reference) legend.push_back({"capacity / limit / max", colors::kReference, Swatch::Line, kDashed});
  if (markers) legend.push_back({"event", colors::kEvent, Swatch::Marker, kDotted});
  for (LegendEntry& e : split_entries(training)) legend.push_back(std::move(e));
  return legend;
}

void draw_gpu_lines(Canvas& canvas, const PlotRun& run, std::int64_t origin, const std::vector<Panel>& panels,
                    const std::vector<Frame>& frames) {
  LineBuilder builder;
  const double shift_s = seconds_between(origin, run.line_origin_ns);
  for (std::size_t d = 0; d < run.devices.size(); ++d) {
    for (std::size_t i = 0; i < panels.size(); ++i) {
      const Line& line = run.devices[d].metric(panels[i].metric).line;
      if (line.t_s.empty()) continue;
      const auto points = builder.points(line, shift_s, pixel_columns(frames[i]));
      draw_line(canvas, frames[i], points, panels[i].scale.unit.divisor, series_color(d), series_dash(d));
    }
  }
}

}  // namespace

std::vector<TrainingPanel> timeline_training(const PlotRun& run) {
  return training_panels(training_series(run.base.events), elapsed_end_s(run, time_origin_ns(run)));
}

PlotGeometry draw_timeline(Canvas& canvas, const PlotRun& run, const PlotOptions& options) {
  std::vector<Panel> panels;
  for (DeviceMetric m : kTimelineMetrics) {
    Panel p{m, reference_for(run, m), {}};
    p.scale = metric_scale({&run, 1}, m, p.reference ? std::optional(p.reference->value) : std::nullopt);
    panels.push_back(p);
  }
  const std::vector<TrainingPanel> training = timeline_training(run);
  const std::int64_t origin = time_origin_ns(run);
  const std::vector<Marker> markers = event_markers(run.base, origin);
  const Page page = draw_page(canvas, title_or(options, fmt::format("GPU timeline \u2014 {}", run_label(run.base.run))),
                              run_subtitle(run), timeline_legend(run, panels, !markers.empty(), training));

  std::vector<PanelText> texts;
  for (const Panel& p : panels) texts.push_back(gpu_panel_text(p));
  for (const TrainingPanel& p : training) texts.push_back(training_panel_text(p));
  // Stacked on one column when each panel keeps a readable height, else in
  // two columns.
  const std::size_t band_rows = markers.empty() ? 0 : markers.size() <= 3 || page.body.h < 700 ? 1 : 2;
  const double band_h = marker_band_height(canvas, band_rows);
  const bool stacked = (page.body.h - band_h) / static_cast<double>(texts.size()) >= kMinStackedPanelHeight;
  const GridShape shape = stacked ? GridShape{texts.size(), 1} : GridShape{(texts.size() + 1) / 2, 2};
  for (std::size_t i = 0; i < texts.size(); ++i) {
    texts[i].show_x_title = i + shape.cols >= texts.size();  // the lowest of its column
    if (i < shape.cols) texts[i].band_h = band_h;             // the top row
  }
  XAxisSpec x;
  x.hi = elapsed_end_s(run, origin);
  const std::vector<Frame> frames = layout_frames(canvas, grid_cells(page.body, shape), texts, x);

  PlotGeometry geometry;
  geometry.legend = page.legend;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    draw_frame(canvas, frames[i]);
    if (i < panels.size() && panels[i].scale.range.empty()) {
      draw_note(canvas, frames[i], fmt::format("no data: no GPU reported {}", info(panels[i].metric).name));
    } else if (i < panels.size() && panels[i].reference) {
      draw_reference_line(canvas, frames[i], panels[i].reference->value / panels[i].scale.unit.divisor);
    }
    draw_markers(canvas, frames[i], markers);
    geometry.panels.push_back(panel_geometry(frames[i], i < panels.size() ? panels[i].scale.unit.divisor : 1));
  }
  for (std::size_t i = 0; i < shape.cols && i < frames.size(); ++i) draw_marker_labels(canvas, frames[i], markers);
  draw_gpu_lines(canvas, run, origin, panels, frames);
  const TrainingX seconds = [origin](std::int64_t wall_ns) -> std::optional<double> {
    return seconds_between(origin, wall_ns);
  };
  for (std::size_t i = 0; i < training.size(); ++i) {
    draw_training_curves(canvas, frames[panels.size() + i], training[i], seconds, std::nullopt);
  }
  return geometry;
}

}  // namespace gpuwatch::plot::detail
