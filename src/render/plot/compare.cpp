// compare: runs side by side. Each run is one line (the mean over its GPUs)
// on an axis of time since its own start, and one bar (its time-weighted
// mean, whiskers from its lowest to its highest GPU).
#include <algorithm>

#include <fmt/format.h>

#include "analysis/stats.h"
#include "render/plot/kinds.h"
#include "render/plot/labels.h"
#include "render/plot/marks.h"
#include "render/plot/page.h"
#include "render/plot/style.h"

namespace gpuwatch::plot::detail {

namespace {

constexpr DeviceMetric kDefaultMetrics[] = {DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes,
                                            DeviceMetric::PowerWatts};

std::vector<DeviceMetric> compared_metrics(const PlotOptions& options) {
  if (options.metric) return {*options.metric};
  return {std::begin(kDefaultMetrics), std::end(kDefaultMetrics)};
}

struct RunMean {
  std::optional<double> mean;  // of the per-GPU means, stored units
  double lowest = 0;
  double highest = 0;
};

RunMean run_mean(const PlotRun& run, DeviceMetric metric) {
  std::vector<double> means;
  for (const DeviceData& d : run.devices) {
    if (const auto& s = d.metric(metric).moments) means.push_back(s->mean);
  }
  if (means.empty()) return {};
  double sum = 0;
  for (double m : means) sum += m;
  const auto [lo, hi] = std::minmax_element(means.begin(), means.end());
  return {sum / static_cast<double>(means.size()), *lo, *hi};
}

// What the runs share on the page: each run's time origin, the events of
// all of them in time order, the legend, and the two panels' x axes.
struct CompareLayout {
  std::vector<std::int64_t> origins;
  std::vector<Marker> markers;
  std::vector<LegendEntry> legend;
  XAxisSpec time_axis;
  XAxisSpec run_axis{XAxisSpec::Kind::Categories, 0, 1, false, {}, "Run"};
};

CompareLayout compare_layout(std::span<const PlotRun> runs) {
  CompareLayout c;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    c.origins.push_back(time_origin_ns(runs[r]));
    c.time_axis.hi = std::max(c.time_axis.hi, elapsed_end_s(runs[r], c.origins.back()));
    const RunInfo& run_info = runs[r].base.run;
    const auto run_markers = event_markers(runs[r].base, c.origins.back(), series_color(r));
    c.markers.insert(c.markers.end(), run_markers.begin(), run_markers.end());
    const std::string id = run_info.id.empty() ? "" : fmt::format(" ({})", run_info.id);
    const std::string name = run_info.name.empty() ? run_info.id : run_info.name + id;
    c.legend.push_back({fmt::format("#{} {}, {} GPU{}", r + 1, name, runs[r].devices.size(),
                                    runs[r].devices.size() == 1 ? "" : "s"),
                        series_color(r), Swatch::Line, series_dash(r)});
    c.run_axis.categories.push_back(fmt::format("#{}", r + 1));
  }
  std::stable_sort(c.markers.begin(), c.markers.end(), [](const Marker& a, const Marker& b) { return a.t < b.t; });
  if (!c.markers.empty()) c.legend.push_back({"event (run's colour)", colors::kEvent, Swatch::Marker, kDotted});
  return c;
}

// The time panel of one metric's row.
PanelText line_panel_text(Canvas& canvas, DeviceMetric m, const MetricScale& s, bool first_row, bool last_row,
                          std::size_t marker_count) {
  PanelText lt;
  lt.title = std::string(metric_title(m));
  lt.y_title = axis_title(metric_title(m), s.unit.symbol);
  lt.y_title_short = s.unit.symbol;
  lt.y_lo = s.range.empty() ? 1 : s.lo();
  lt.y_hi = s.range.empty() ? 0 : s.hi();
  lt.y_from_zero = from_zero(m);
  lt.show_x_title = last_row;
  if (first_row && marker_count > 0) lt.band_h = marker_band_height(canvas, marker_count <= 3 ? 1 : 2);
  return lt;
}

// Each run's bar for metric `m`, in display units; `top` becomes the
// highest whisker.
std::vector<Bar> run_mean_bars(std::span<const PlotRun> runs, DeviceMetric m, const MetricScale& s, double& top) {
  std::vector<Bar> run_bars;
  top = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const RunMean mean = run_mean(runs[r], m);
    if (mean.mean) {
      top = std::max(top, mean.highest / s.unit.divisor);
      run_bars.push_back(value_bar(*mean.mean / s.unit.divisor, mean.lowest / s.unit.divisor,
                                   mean.highest / s.unit.divisor, series_color(r)));
    } else {
      run_bars.push_back(value_bar(std::nullopt, std::nullopt, std::nullopt, series_color(r)));
    }
  }
  return run_bars;
}

// The bar panel beside a time panel, its rows lined up with it.
PanelText bar_panel_text(const PanelText& line, double top, bool first_row) {
  PanelText bt;
  bt.title = "Run mean";
  bt.y_title = line.y_title;
  bt.y_title_short = line.y_title_short;
  bt.y_hi = std::max(top * 1.15, 1e-9);
  bt.show_x_title = line.show_x_title;
  if (first_row) bt.band_h = line.band_h;  // rows line up with the time panels
  return bt;
}

// Every metric's row: a time panel of each run's mean line, and a panel of
// each run's bar.
struct CompareRows {
  std::vector<Rect> line_cells;
  std::vector<Rect> bar_cells;
  std::vector<PanelText> line_texts;
  std::vector<PanelText> bar_texts;
  std::vector<MetricScale> scales;
  std::vector<std::vector<Bar>> bars;
};

CompareRows compare_rows(Canvas& canvas, std::span<const PlotRun> runs, const std::vector<DeviceMetric>& metrics,
                         const std::vector<Rect>& cells, std::size_t marker_count) {
  CompareRows rows;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const DeviceMetric m = metrics[i];
    rows.scales.push_back(metric_scale(runs, m, std::nullopt));
    const MetricScale& s = rows.scales.back();
    rows.line_cells.push_back(cells[2 * i]);
    rows.bar_cells.push_back(cells[2 * i + 1]);
    rows.line_texts.push_back(line_panel_text(canvas, m, s, i == 0, i + 1 == metrics.size(), marker_count));
    double top = 0;
    rows.bars.push_back(run_mean_bars(runs, m, s, top));
    rows.bar_texts.push_back(bar_panel_text(rows.line_texts.back(), top, i == 0));
  }
  return rows;
}

}  // namespace

PlotNeeds compare_needs(const PlotOptions& options) {
  PlotNeeds needs;
  needs.line_buckets = line_buckets(options);
  needs.moments = compared_metrics(options);
  needs.means = needs.moments;
  return needs;
}

PlotGeometry draw_compare(Canvas& canvas, std::span<const PlotRun> runs, const PlotOptions& options) {
  const std::vector<DeviceMetric> metrics = compared_metrics(options);
  const CompareLayout layout = compare_layout(runs);
  const std::vector<Marker>& markers = layout.markers;

  std::string title = runs.size() == 2 ? fmt::format("Compare runs \u2014 {} vs {}", run_label(runs[0].base.run),
                                                     run_label(runs[1].base.run))
                                       : fmt::format("Compare {} runs", runs.size());
  const Page page = draw_page(canvas, title_or(options, title),
                              "time since each run's start \u00b7 lines: mean over the run's GPUs \u00b7 bars: "
                              "time-weighted mean, whiskers: lowest and highest GPU",
                              layout.legend);
  constexpr double kWeights[] = {3, 1};
  const std::vector<Rect> cells = grid_cells(page.body, {metrics.size(), 2}, kWeights);
  const CompareRows rows = compare_rows(canvas, runs, metrics, cells, markers.size());
  const std::vector<Frame> line_frames = layout_frames(canvas, rows.line_cells, rows.line_texts, layout.time_axis);
  const std::vector<Frame> bar_frames = layout_frames(canvas, rows.bar_cells, rows.bar_texts, layout.run_axis);

  PlotGeometry geometry;
  geometry.legend = page.legend;
  LineBuilder builder;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const Frame& f = line_frames[i];
    const double divisor = rows.scales[i].unit.divisor;
    draw_frame(canvas, f);
    draw_frame(canvas, bar_frames[i]);
    geometry.panels.push_back(panel_geometry(f, divisor));
    geometry.panels.push_back(panel_geometry(bar_frames[i], divisor));
    if (rows.scales[i].range.empty()) {
      const std::string note = fmt::format("no data: no run has {}", info(metrics[i]).name);
      draw_note(canvas, f, note);
      draw_note(canvas, bar_frames[i], "no data");
      continue;
    }
    draw_markers(canvas, f, markers);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const double shift_s = seconds_between(layout.origins[r], runs[r].line_origin_ns);
      draw_line(canvas, f, builder.points(runs[r].mean(metrics[i]), shift_s, pixel_columns(f)), divisor,
                series_color(r), series_dash(r));
    }
    draw_bars(canvas, bar_frames[i], rows.bars[i]);
  }
  if (!line_frames.empty()) draw_marker_labels(canvas, line_frames[0], markers);
  return geometry;
}

}  // namespace gpuwatch::plot::detail
