// Pictures of runs, written as PNG, SVG or PDF (chosen by the file name).
//
//   timeline   utilization, memory, power, temperature and SM clock over
//              elapsed time, one line per GPU, events as vertical markers;
//              under them the training's loss, logged scalars and steps/s
//              when the run annotated them (training_panel.h)
//   per-gpu    one panel per GPU in seed 001's grid (1×2, 2×2, 2×3, 2×4, ...)
//   balance    per-GPU means of utilization and memory, and their coefficient
//              of variation against the 5 / 10 / 20 % quality bands
//   compare    two or more runs on one elapsed-time (or step, epoch) axis,
//              their means, and their loss curves overlaid
//   histogram  how long each GPU spent at each value of one metric
//
// A run is read one GPU at a time and reduced to what its picture shows
// (plot_data.h): the min and max of a few thousand buckets per line, exact
// means and distributions. A 35-hour run of 8 GPUs is never in memory whole,
// and every peak stays visible. A run longer in minutes than its picture is
// wide in pixels is read from its per-minute rollups (plot_rollups.h).
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_columns.h"
#include "core/metrics.h"
#include "core/rollup.h"
#include "core/run.h"
#include "render/plot/canvas.h"
#include "render/plot/frame.h"
#include "render/plot/legend.h"
#include "render/plot/plot_data.h"

namespace gpuwatch::plot {

enum class PlotKind { Timeline, PerGpu, Balance, Compare, Histogram };
std::string_view to_string(PlotKind kind);
std::optional<PlotKind> plot_kind_by_name(std::string_view name);
std::vector<std::string> plot_kind_names();

// compare's x axis: time since each run's start, or the runs' training
// progress from their annotations (step counter, epochs), as `compare
// --align` matches runs.
enum class PlotAlign { Time, Step, Epoch };
std::optional<PlotAlign> plot_align_by_name(std::string_view name);

struct PlotOptions {
  PlotKind kind = PlotKind::Timeline;
  int width_px = 0;   // 0: the kind's default
  int height_px = 0;  // 0: the kind's default
  // per-gpu (default memory used), histogram (default utilization), compare
  // (default: utilization, memory and power); the other kinds take none.
  std::optional<DeviceMetric> metric;
  std::string title;  // empty: one made from the kind and the run
  PlotAlign align = PlotAlign::Time;  // compare only
};

inline constexpr int kMinSidePx = 320;
inline constexpr int kMaxSidePx = 8000;
struct PlotSize {
  int width_px = 0;
  int height_px = 0;
};
PlotSize default_size(PlotKind kind);
PlotSize plot_size(const PlotOptions& options);  // the defaults filled in
// For these runs: taller by the training panels the picture draws
// (timeline, compare) unless the height was given.
PlotSize plot_size(const PlotOptions& options, std::span<const PlotRun> runs);

// Metrics that are quantities over time (not bitmasks or bookkeeping).
bool plottable(DeviceMetric metric);
std::optional<DeviceMetric> plottable_metric_by_name(std::string_view name);
std::vector<std::string> plottable_metric_names();

// Throws PlotError when the request cannot be drawn whatever the runs hold:
// wrong number of runs for the kind, a metric the kind does not take, a size
// out of range. Lets a command reject bad usage before loading anything.
void check_plot_request(std::size_t run_count, const PlotOptions& options);

// Where things were drawn, so tests can find them in the pixels.
struct PanelGeometry {
  Frame frame;
  double y_divisor = 1;  // stored value / y_divisor = the frame's y
  [[nodiscard]] double x_px(double x) const { return frame.px(x); }
  [[nodiscard]] double y_px(double stored) const { return frame.py(stored / y_divisor); }
};
struct PlotGeometry {
  std::vector<PanelGeometry> panels;
  std::vector<LegendItem> legend;
};

// What the picture `options` ask for reads of each run.
PlotNeeds plot_needs(const PlotOptions& options);
// Reads a run for the picture: `base` is the run without device samples
// (load_run_base, run_base), `columns` where its GPUs' samples come from.
// A finished run that spans more minutes than the picture is wide in pixels
// is read from `rollups` instead, when given and every GPU has them
// (plot_rollups.h): a picture of two weeks then reads megabytes, not
// gigabytes.
PlotRun read_for_plot(RunData base, const DeviceColumns& columns, const PlotOptions& options,
                      const RollupSource* rollups = nullptr);

// Draws the picture on `canvas` (whose size it uses). Throws PlotError for
// a bad request or runs with nothing to draw. The runs must have been read
// for these options.
PlotGeometry render_plot(Canvas& canvas, std::span<const PlotRun> runs, const PlotOptions& options);
// Draws and writes `out`, atomically; the format follows its extension. The
// entry point for `gpuwatch plot`.
void write_plot(std::span<const PlotRun> runs, const PlotOptions& options, const std::filesystem::path& out);

// The same for runs in memory.
PlotGeometry render_plot(Canvas& canvas, std::span<const RunData> runs, const PlotOptions& options);
void write_plot(std::span<const RunData> runs, const PlotOptions& options, const std::filesystem::path& out);

}  // namespace gpuwatch::plot
