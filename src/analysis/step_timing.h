// The step's own time (core/step_timing.h): how much of each training step
// the loop spent waiting for its next batch, summed from the client's
// data_wait_s / step_time_s / timed_steps log messages over a span of the
// run, an epoch, or the advisor's window.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

// One message as read back, already checked (see step_timing_messages()).
struct StepTimingMessage {
  std::int64_t mono_ns = 0;  // the end of the last step it covers
  double data_wait_s = 0;    // at most step_time_s
  double step_time_s = 0;    // above 0
  double steps = 0;          // a whole number >= 1
};

struct StepTiming {
  double data_wait_s = 0;
  double step_time_s = 0;
  double steps = 0;             // timed steps covered (a sum of whole numbers)
  std::size_t messages = 0;     // messages summed
  std::size_t clamped = 0;      // of those, messages whose wait exceeded their step time

  // sum data_wait_s / sum step_time_s, in percent: the share of the loop's
  // time spent waiting for data, long steps weighing more than short ones.
  [[nodiscard]] std::optional<double> data_wait_percent() const;
  // sum step_time_s / sum timed_steps: the mean step, its wait included.
  [[nodiscard]] std::optional<double> mean_step_s() const;
  void add(const StepTimingMessage& m);
  void add(const StepTiming& other);
};

// The run's step-timing messages in time order, with what could not be used
// left out and counted in `skipped` (when given). A message is used when it
// holds all three names, none negative, timed_steps a whole number >= 1 and
// step_time_s above 0 (values that are not finite never reach the store).
// A wait longer than its step time (clocks read at different points) is cut
// to the step time, so the share never exceeds 100 %. A message whose sums
// would overflow is skipped.
std::vector<StepTimingMessage> step_timing_messages(std::span<const Event> events, std::size_t* skipped = nullptr);

// The messages whose time lies in [begin_ns, end_ns), summed; `messages`
// as step_timing_messages() returns them (in time order). Nullopt when none.
std::optional<StepTiming> sum_step_timing(std::span<const StepTimingMessage> messages, std::int64_t begin_ns,
                                          std::int64_t end_ns);
// All of them: the whole run.
std::optional<StepTiming> total_step_timing(std::span<const StepTimingMessage> messages);

}  // namespace gpuwatch
