// One line for several GPUs: the mean across devices at each sampling tick,
// as `plot --kind compare` draws a run.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gpuwatch {

struct TimedColumn {
  std::span<const std::int64_t> time_ns;  // sorted
  std::span<const double> values;         // NaN: not read on that tick
};

// At each tick, the mean of every series' latest value that is at most
// max_age_ns old (a slow metric keeps its last read between reads; a series
// that stopped, such as a lost GPU, drops out). Samples of different series
// less than tick_tolerance_ns apart make one tick, so GPUs sampled together
// give one point, not one per GPU. A tick with no fresh value is NaN.
// O(samples × series); appends to the outputs after clearing them.
void mean_across(std::span<const TimedColumn> series, std::int64_t tick_tolerance_ns, std::int64_t max_age_ns,
                 std::vector<std::int64_t>& out_time_ns, std::vector<double>& out_values);

}  // namespace gpuwatch
