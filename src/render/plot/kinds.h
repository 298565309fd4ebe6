// The five kinds of picture, and what they share. Internal to render/plot.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats.h"
#include "render/plot/marks.h"
#include "render/plot/plot.h"
#include "render/plot/plot_data.h"
#include "render/plot/scale.h"
#include "render/plot/series.h"
#include "render/plot/training_panel.h"

namespace gpuwatch::plot::detail {

// What each kind reads of a run (the metrics the options ask for).
PlotNeeds timeline_needs(const PlotOptions& options);
PlotNeeds per_gpu_needs(const PlotOptions& options);
PlotNeeds balance_needs(const PlotOptions& options);
PlotNeeds compare_needs(const PlotOptions& options);
PlotNeeds histogram_needs(const PlotOptions& options);

// The training panels a timeline of `run` draws under its GPUs' (training_panel.h).
std::vector<TrainingPanel> timeline_training(const PlotRun& run);

PlotGeometry draw_timeline(Canvas& canvas, const PlotRun& run, const PlotOptions& options);
PlotGeometry draw_per_gpu(Canvas& canvas, const PlotRun& run, const PlotOptions& options);
PlotGeometry draw_balance(Canvas& canvas, const PlotRun& run, const PlotOptions& options);
// Whether any of the runs logged a loss: compare draws a row for it.
bool compare_has_loss(std::span<const PlotRun> runs);
PlotGeometry draw_compare(Canvas& canvas, std::span<const PlotRun> runs, const PlotOptions& options);
PlotGeometry draw_histogram(Canvas& canvas, const PlotRun& run, const PlotOptions& options);

// "GPU 0", "GPU 1", ... in their colours.
std::vector<LegendEntry> gpu_entries(const PlotRun& run, Swatch swatch);
std::string title_or(const PlotOptions& options, std::string fallback);

// Percent, bytes and watts are read against zero; temperatures and clocks
// against their own range.
bool from_zero(DeviceMetric metric);

// The line a metric is read against: memory capacity, power limit, maximum
// clock. Its value is the largest any GPU of the run reports.
struct Reference {
  DeviceMetric metric;
  std::string_view name;  // the metric's short label: "memory total", "power limit"
  double value = 0;       // stored units
};
// The metric holding the reference of `metric`, if it has one.
std::optional<DeviceMetric> reference_metric(DeviceMetric metric);
// Needs the range of reference_metric(metric).
std::optional<Reference> reference_for(const PlotRun& run, DeviceMetric metric);

// A metric's values over every GPU of the run, and the unit to show them in.
struct MetricScale {
  ValueRange range;  // stored units, the reference included
  DisplayUnit unit;
  [[nodiscard]] double lo() const { return range.lo / unit.divisor; }
  [[nodiscard]] double hi() const { return range.hi / unit.divisor; }
};
// Needs the metric's range.
MetricScale metric_scale(std::span<const PlotRun> runs, DeviceMetric metric, std::optional<double> reference);

// "79.6 GiB": a stored value in a unit chosen for it.
std::string format_value(double stored, std::string_view stored_unit);

PanelGeometry panel_geometry(const Frame& frame, double divisor);

// The load-balance panel's pieces (balance.cpp), shared with the matrix's
// figure: the coefficient of variation across GPUs as a grey bar labelled
// with its band, against dashed lines at the bands' edges (5, 10, 20 %).
inline constexpr Rgb kCvColor = rgb_hex(0x6a6a6a);
Bar cv_bar(const Balance& balance);
// The CV axis' top: 25 % at least, room for the labels over the tallest bar.
double cv_axis_top(std::span<const Bar> cv_bars);
// PanelText::right_room for the bands' labels.
double band_label_room(Canvas& canvas);
// The dashed lines, labelled right of the area.
void draw_balance_bands(Canvas& canvas, const Frame& frame);
// "CV across GPUs", "quality bands: 5 / 10 / 20 %".
std::vector<LegendEntry> balance_band_entries();

// Line buckets for a picture `options` ask for: several per pixel column
// whatever the layout, so that the reduced line draws as the full one does.
std::size_t line_buckets(const PlotOptions& options);

}  // namespace gpuwatch::plot::detail
