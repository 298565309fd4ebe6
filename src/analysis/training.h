// What the training said about itself (its annotations, docs/annotations.md),
// summed up for the report: progress, logged scalars, and PyTorch's allocator
// memory to set beside the driver's.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/step_timing.h"
#include "core/log_message.h"
#include "core/sample.h"

namespace gpuwatch {

// The latest value of one logged name in `events`, if any.
std::optional<double> latest_logged(std::span<const Event> events, std::string_view name);

// Events stored for every step or scalar: the report summarizes them instead of listing them.
bool is_dense_annotation(const Event& e);

// Events the recorder stores for itself rather than for the user: which GPUs
// were the job's (job_gpus), the advisor's configuration, how many
// annotations it did not keep (the training summary counts those). Pictures
// and text reports leave them out; the JSON report and `report --full` keep
// them. processes_hidden is not one: it tells the reader of the process
// table that the table is not whole.
bool is_internal_event(const Event& e);

struct ScalarSummary {
  std::string name;
  std::size_t count = 0;  // stored values (at most one a second)
  double first = 0;
  double last = 0;
  double min = 0;
  double max = 0;
};

struct TrainingSummary {
  std::optional<std::int64_t> last_step;
  std::size_t epochs = 0;  // epochs seen: an epoch said again in a row counts once
  std::size_t marks = 0;
  std::size_t marks_dropped = 0;  // marks the recorder did not store (rate and count limits)
  std::size_t logs_dropped = 0;   // log messages not stored: too many different sets of names
  std::optional<double> model_params;
  std::vector<ScalarSummary> scalars;  // in order of first appearance, allocator and model size apart
  // PyTorch's caching allocator (torch_*_bytes logs), peaks over the run.
  std::optional<double> torch_allocated_peak_bytes;
  std::optional<double> torch_reserved_peak_bytes;
  std::optional<double> torch_max_allocated_bytes;
  // The client's step timing (data_wait_s, step_time_s, timed_steps) over the
  // whole run: not among `scalars`, where a sum of waits would read as a value.
  std::optional<StepTiming> step_timing;
  std::size_t step_timing_skipped = 0;  // messages that could not be used (step_timing.h)
};

// Nullopt when the run has no annotations at all.
std::optional<TrainingSummary> summarize_training(std::span<const Event> events);

}  // namespace gpuwatch
