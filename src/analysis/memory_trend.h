// How device memory moved over a run: the trend, the growth that raises a
// leak suspicion, and sudden drops (a cache freed, a phase ended, a process
// died).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gpuwatch {

struct MemoryDrop {
  std::int64_t time_ns = 0;  // where the fall began
  double from_bytes = 0;
  double to_bytes = 0;
};

struct MemoryTrendOptions {
  // A drop is a fall of at least this share of the level before it, and at
  // least min_drop_bytes, within `drop_window_ns`.
  double min_drop_fraction = 0.25;
  double min_drop_bytes = 256.0 * 1024 * 1024;
  std::int64_t drop_window_ns = 5'000'000'000;
  // Growth from the first to the last tenth above this share of the device's
  // memory (or of the first tenth's level when the total is unknown) makes a
  // leak suspect, when the trend agrees.
  double leak_growth_fraction = 0.05;
};

// A rate per hour from a few minutes of samples is mostly noise (a model
// loading, a cache warming): reports give it from this span on.
inline constexpr double kMemoryRateMinSpanS = 300;

struct MemoryTrend {
  double span_s = 0;                // first to last sample judged
  double slope_bytes_per_hour = 0;  // least squares, time-weighted
  double first_tenth_mean_bytes = 0;
  double last_tenth_mean_bytes = 0;
  double growth_bytes = 0;          // last tenth minus first tenth
  std::optional<double> growth_percent_of_total;
  bool leak_suspected = false;
  std::vector<MemoryDrop> drops;
};

// total_bytes: the device's memory, when known (for percentages).
// Nullopt with fewer than 10 samples: tenths of nothing say nothing.
std::optional<MemoryTrend> memory_trend(std::span<const std::int64_t> time_ns, std::span<const double> used_bytes,
                                        std::optional<double> total_bytes, const MemoryTrendOptions& options = {});

// The drops alone, over a window of samples (a long run's trend comes from
// its rollups, and only the windows they flag are read: detector_rollups.h).
std::vector<MemoryDrop> memory_drops(std::span<const std::int64_t> time_ns, std::span<const double> used_bytes,
                                     const MemoryTrendOptions& options = {});

}  // namespace gpuwatch
