// The training's own signals over time, from its annotations
// (docs/annotations.md): every logged scalar as a series, the step counter
// and the throughput it implies, and the run's progress (step or epoch) at
// any moment, so that pictures can draw them beside the GPUs and line runs
// up by training progress instead of elapsed time.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

struct TrainingPoint {
  std::int64_t wall_ns = 0;
  double value = 0;
};

struct ScalarSeries {
  std::string name;
  std::vector<TrainingPoint> points;  // in time order
};

// The logged batch size, under this name, turns steps/s into samples/s.
inline constexpr std::string_view kBatchSizeLogName = "batch_size";

struct TrainingSeries {
  // Logged scalars in order of first appearance; the names that are not
  // values over time (model size, allocator bytes, step timing, batch size)
  // are left out.
  std::vector<ScalarSeries> scalars;
  std::vector<TrainingPoint> steps;       // the step counter
  std::vector<TrainingPoint> batch_size;  // kBatchSizeLogName
  // The share of each step-timing message's steps spent waiting for data,
  // in percent (analysis/step_timing.h), at the message's end.
  std::vector<TrainingPoint> data_wait_percent;
  [[nodiscard]] bool empty() const { return scalars.empty() && steps.size() < 2 && data_wait_percent.empty(); }
};
TrainingSeries training_series(std::span<const Event> events);

// Which part of the training a scalar's name says it measures: "val_loss",
// "eval.loss" and "loss_val" are the validation's "loss", "train_loss" and
// "loss" the training's; a picture overlays the parts of one group.
enum class ScalarSplit { Train, Val, Test };
struct ScalarName {
  std::string group;  // "loss"
  ScalarSplit split = ScalarSplit::Train;
};
ScalarName split_scalar_name(std::string_view name);
std::string_view to_string(ScalarSplit split);

// Steps per second over consecutive windows of at least `window_s` seconds,
// one point at each window's end; a counter that goes back (a restart) or a
// pause longer than a window (an evaluation) starts a new count. Times with `batch_size` values become samples per
// second when `batch_size` is not empty (the latest size at each point).
std::vector<TrainingPoint> step_rate(std::span<const TrainingPoint> steps, double window_s);
std::vector<TrainingPoint> sample_rate(std::span<const TrainingPoint> step_rate,
                                       std::span<const TrainingPoint> batch_size);

// A run's training progress over time, piecewise linear between its knots:
// the step counter, or epochs (epoch N's start at N, its end at N + 1).
// Outside the annotated span there is no progress.
struct ProgressMap {
  std::vector<std::int64_t> wall_ns;
  std::vector<double> progress;
  std::vector<bool> breaks_after;  // no progress between knot i and i + 1 (between epochs)
  [[nodiscard]] bool empty() const { return wall_ns.size() < 2; }
  [[nodiscard]] std::optional<double> at(std::int64_t wall) const;
};
ProgressMap step_progress(std::span<const TrainingPoint> steps);
// Epochs by their number when every label is a whole number, else by their
// place (0, 1, ...); the last open epoch ends at `run_end_wall_ns`.
ProgressMap epoch_progress(std::span<const Event> events, std::int64_t run_end_wall_ns);

}  // namespace gpuwatch
