// Idle gaps: stretches where the GPU does nothing while the command runs.
// A training loop that waits for its input shows them at every step, so a
// regular period is the signature of an input-bound job.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gpuwatch {

struct IdleGapOptions {
  double idle_below_percent = 5;  // utilization under this is idle
  std::int64_t max_half_gap_ns = 0;  // as in time_weights_s
};

struct IdleGap {
  std::int64_t start_ns = 0;  // on the series' clock
  double duration_s = 0;
};

// A steady period needs a few repeats before it means anything: with fewer
// gaps there is no typical period to claim (two gaps are one interval).
inline constexpr std::size_t kMinIdleGapsForPeriod = 4;
// A spread under a quarter of the period: a data loader stalling every step,
// not random hiccups.
inline constexpr double kRegularPeriodCv = 0.25;

struct IdleGapReport {
  // Gaps count only between the first and the last busy sample: start-up
  // (loading a model) and tear-down are reported apart.
  std::size_t count = 0;
  double total_s = 0;
  double longest_s = 0;
  double busy_span_s = 0;         // first to last busy sample
  std::int64_t first_busy_ns = 0;  // on the series' clock
  std::int64_t last_busy_ns = 0;
  double leading_idle_s = 0;
  double trailing_idle_s = 0;
  // Median start-to-start of gaps and their spread (0 = clockwork), from
  // kMinIdleGapsForPeriod gaps on.
  std::optional<double> typical_period_s;
  std::optional<double> period_cv;
  bool regular = false;  // a typical period with a spread under a quarter of it
  std::vector<IdleGap> longest;            // up to 5, longest first
};

// Nullopt when the series has no busy sample at all (nothing ran).
std::optional<IdleGapReport> find_idle_gaps(std::span<const std::int64_t> time_ns,
                                            std::span<const double> util_percent,
                                            const IdleGapOptions& options = {});

}  // namespace gpuwatch
