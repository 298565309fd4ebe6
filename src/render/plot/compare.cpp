// compare: runs side by side. Each run is one line (the mean over its GPUs)
// on an axis of time since its own start (or of its step or epoch, with
// --align), and one bar (its time-weighted mean, whiskers from its lowest to
// its highest GPU); under them the runs' loss curves and final losses when
// they logged a loss.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "analysis/stats.h"
#include "analysis/training_series.h"
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

// What the runs share on the page: each run's time origin (and progress,
// when aligned by step or epoch), the events of all of them in order, the
// legend, and the two panels' x axes.
struct CompareLayout {
  std::vector<std::int64_t> origins;
  std::vector<double> ends_s;           // each run's elapsed end
  std::vector<ProgressMap> progress;    // per run, when aligned
  std::vector<Marker> markers;
  std::vector<LegendEntry> legend;
  XAxisSpec time_axis;                  // the line panels' axis: time, step or epoch
  XAxisSpec run_axis{XAxisSpec::Kind::Categories, 0, 1, false, {}, "Run"};
  // Where a moment of run r goes on the line panels' x axis.
  [[nodiscard]] std::optional<double> x(std::size_t r, std::int64_t wall_ns) const {
    if (progress.empty()) return seconds_between(origins[r], wall_ns);
    return progress[r].at(wall_ns);
  }
};

ProgressMap run_progress(const PlotRun& run, PlotAlign align, std::int64_t end_wall_ns) {
  if (align == PlotAlign::Step) return step_progress(training_series(run.base.events).steps);
  return epoch_progress(run.base.events, end_wall_ns);
}

// Each run's progress, and the axis over all of them; throws PlotError for a
// run without the annotations to align it by.
void align_layout(std::span<const PlotRun> runs, PlotAlign align, CompareLayout& c) {
  const std::string_view unit = align == PlotAlign::Step ? "step" : "epoch";
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const auto end_ns = c.origins[r] + static_cast<std::int64_t>(c.ends_s[r] * 1e9);
    c.progress.push_back(run_progress(runs[r], align, end_ns));
    if (c.progress.back().empty()) {
      throw PlotError(fmt::format("run {} has no {} annotations to align by (see docs/annotations.md); "
                                  "--align time draws it",
                                  run_label(runs[r].base.run), unit));
    }
    lo = std::min(lo, c.progress.back().progress.front());
    hi = std::max(hi, c.progress.back().progress.back());
  }
  c.time_axis = {XAxisSpec::Kind::Value, lo, hi, false, {}, align == PlotAlign::Step ? "Step" : "Epoch"};
}

CompareLayout compare_layout(std::span<const PlotRun> runs, PlotAlign align) {
  CompareLayout c;
  for (const PlotRun& run : runs) {
    c.origins.push_back(time_origin_ns(run));
    c.ends_s.push_back(elapsed_end_s(run, c.origins.back()));
    c.time_axis.hi = std::max(c.time_axis.hi, c.ends_s.back());
  }
  if (align != PlotAlign::Time) align_layout(runs, align, c);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const RunInfo& run_info = runs[r].base.run;
    for (Marker m : event_markers(runs[r].base, c.origins[r], series_color(r))) {
      const auto x = c.x(r, m.wall_ns);
      if (!x) continue;
      m.t = *x;
      c.markers.push_back(std::move(m));
    }
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

namespace {

// The runs' loss curves overlaid, beside a bar of each run's final loss.
struct LossRow {
  std::vector<std::optional<TrainingPanel>> runs;  // a run without a loss: none
  PanelText line;
  PanelText bar;
  std::vector<Bar> bars;
  bool any_val = false;
};

std::vector<std::optional<TrainingPanel>> run_losses(std::span<const PlotRun> runs) {
  std::vector<std::optional<TrainingPanel>> out;
  for (const PlotRun& run : runs) {
    std::optional<TrainingPanel> loss;
    for (TrainingPanel& p : timeline_training(run)) {
      if (p.title == "loss") loss = std::move(p);
    }
    out.push_back(std::move(loss));
  }
  return out;
}

// The last value of the training's own loss (else of the first curve).
std::optional<double> final_loss(const TrainingPanel& loss) {
  const auto train = std::find_if(loss.curves.begin(), loss.curves.end(),
                                  [](const TrainingCurve& c) { return c.split == ScalarSplit::Train; });
  const TrainingCurve& c = train != loss.curves.end() ? *train : loss.curves.front();
  if (c.points.empty()) return std::nullopt;
  return c.points.back().value;
}

std::optional<LossRow> loss_row(std::span<const PlotRun> runs) {
  LossRow row;
  row.runs = run_losses(runs);
  TrainingPanel all{"loss", {}, {}};
  double top = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::optional<double> last = row.runs[r] ? final_loss(*row.runs[r]) : std::nullopt;
    if (last) top = std::max(top, *last);
    row.bars.push_back(value_bar(last, std::nullopt, std::nullopt, series_color(r)));
    if (last) row.bars.back().label = fmt::format("{:.4g}", *last);  // losses differ in the third digit
    if (!row.runs[r]) continue;
    all.range.add(row.runs[r]->range);
    for (const TrainingCurve& c : row.runs[r]->curves) row.any_val = row.any_val || c.split == ScalarSplit::Val;
  }
  if (all.range.empty()) return std::nullopt;
  row.line = training_panel_text(all);
  row.line.title = row.any_val ? "loss  \u00b7  validation dashed" : "loss";
  row.bar.title = "Final loss";
  row.bar.y_title = "loss";
  row.bar.y_hi = std::max(top * 1.15, 1e-9);
  return row;
}

// The points of run r's mean line on the frame's axis: by time, or moved to
// the run's progress at each moment (no progress: a gap).
std::vector<LinePoint> mean_points(LineBuilder& builder, const CompareLayout& layout, std::size_t r,
                                   const PlotRun& run, DeviceMetric m, const Frame& f) {
  const double shift_s = seconds_between(layout.origins[r], run.line_origin_ns);
  if (layout.progress.empty()) return builder.points(run.mean(m), shift_s, pixel_columns(f));
  const BucketGrid by_time{0, layout.ends_s[r], pixel_columns(f).count};
  std::vector<LinePoint> points = builder.points(run.mean(m), shift_s, by_time);
  for (LinePoint& p : points) {
    const auto x = layout.x(r, layout.origins[r] + static_cast<std::int64_t>(p.t * 1e9));
    if (x) {
      p.t = *x;
    } else {
      p.v = kNaN;
    }
  }
  return points;
}

std::string compare_subtitle(PlotAlign align) {
  const std::string_view x = align == PlotAlign::Time    ? "time since each run's start"
                             : align == PlotAlign::Step ? "by step (the runs' annotations)"
                                                        : "by epoch (the runs' annotations)";
  return fmt::format("{} \u00b7 lines: mean over the run's GPUs \u00b7 bars: time-weighted mean, whiskers: lowest "
                     "and highest GPU",
                     x);
}

void draw_metric_rows(Canvas& canvas, std::span<const PlotRun> runs, const std::vector<DeviceMetric>& metrics,
                      const CompareLayout& layout, const CompareRows& rows, const std::vector<Frame>& line_frames,
                      const std::vector<Frame>& bar_frames, PlotGeometry& geometry) {
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
    draw_markers(canvas, f, layout.markers);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      draw_line(canvas, f, mean_points(builder, layout, r, runs[r], metrics[i], f), divisor, series_color(r),
                series_dash(r));
    }
    draw_bars(canvas, bar_frames[i], rows.bars[i]);
  }
}

void draw_loss_row(Canvas& canvas, const CompareLayout& layout, const LossRow& loss, const Frame& line_frame,
                   const Frame& bar_frame, PlotGeometry& geometry) {
  draw_frame(canvas, line_frame);
  draw_frame(canvas, bar_frame);
  geometry.panels.push_back(panel_geometry(line_frame, 1));
  geometry.panels.push_back(panel_geometry(bar_frame, 1));
  draw_markers(canvas, line_frame, layout.markers);
  for (std::size_t r = 0; r < loss.runs.size(); ++r) {
    if (!loss.runs[r]) continue;
    const TrainingX x = [&layout, r](std::int64_t wall_ns) { return layout.x(r, wall_ns); };
    draw_training_curves(canvas, line_frame, *loss.runs[r], x, series_color(r));
  }
  draw_bars(canvas, bar_frame, loss.bars);
}

}  // namespace

bool compare_has_loss(std::span<const PlotRun> runs) {
  const auto losses = run_losses(runs);
  return std::any_of(losses.begin(), losses.end(), [](const auto& l) { return l.has_value(); });
}

PlotGeometry draw_compare(Canvas& canvas, std::span<const PlotRun> runs, const PlotOptions& options) {
  const std::vector<DeviceMetric> metrics = compared_metrics(options);
  const CompareLayout layout = compare_layout(runs, options.align);
  const std::optional<LossRow> loss = loss_row(runs);
  const std::string title = runs.size() == 2 ? fmt::format("Compare runs \u2014 {} vs {}", run_label(runs[0].base.run),
                                                           run_label(runs[1].base.run))
                                             : fmt::format("Compare {} runs", runs.size());
  const Page page = draw_page(canvas, title_or(options, title), compare_subtitle(options.align), layout.legend);
  constexpr double kWeights[] = {3, 1};
  const std::size_t row_count = metrics.size() + (loss ? 1 : 0);
  const std::vector<Rect> cells = grid_cells(page.body, {row_count, 2}, kWeights);
  CompareRows rows = compare_rows(canvas, runs, metrics, cells, layout.markers.size());
  if (loss) {
    rows.line_texts.back().show_x_title = false;
    rows.bar_texts.back().show_x_title = false;
    rows.line_cells.push_back(cells[2 * metrics.size()]);
    rows.bar_cells.push_back(cells[2 * metrics.size() + 1]);
    rows.line_texts.push_back(loss->line);
    rows.bar_texts.push_back(loss->bar);
  }
  const std::vector<Frame> line_frames = layout_frames(canvas, rows.line_cells, rows.line_texts, layout.time_axis);
  const std::vector<Frame> bar_frames = layout_frames(canvas, rows.bar_cells, rows.bar_texts, layout.run_axis);

  PlotGeometry geometry;
  geometry.legend = page.legend;
  draw_metric_rows(canvas, runs, metrics, layout, rows, line_frames, bar_frames, geometry);
  if (loss) draw_loss_row(canvas, layout, *loss, line_frames.back(), bar_frames.back(), geometry);
  if (!line_frames.empty()) draw_marker_labels(canvas, line_frames[0], layout.markers);
  return geometry;
}

}  // namespace gpuwatch::plot::detail
