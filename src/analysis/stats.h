// Time-weighted statistics over irregular samples. Each sample stands for the
// time around it (half the gap to each neighbour), so a burst of fast samples
// or a stall of the sampler does not skew means and percentiles.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace gpuwatch {

struct Summary {
  std::size_t count = 0;     // samples with a value
  double span_s = 0;         // time the samples cover (sum of weights)
  double mean = 0;
  double std = 0;            // population standard deviation, time-weighted
  double min = 0;
  double max = 0;
  double p50 = 0;
  double p95 = 0;
};

// NaN values are absent and skipped. A half-gap longer than `max_half_gap_ns`
// (the sampler was stopped, the machine suspended) is capped to it; zero
// means: cap at 1.5 x the median gap. Returns nullopt when no value exists.
std::optional<Summary> summarize(std::span<const std::int64_t> time_ns,
                                 std::span<const double> values,
                                 std::int64_t max_half_gap_ns = 0);

// The weight in nanoseconds that summarize() gives each sample of a series
// without absent values (times ascending), with the same gap cap. Lets other
// analyses (the bootstrap in compare) weigh samples exactly as the means do.
std::vector<double> time_weights_ns(std::span<const std::int64_t> time_ns, std::int64_t max_half_gap_ns = 0);

// Unweighted sample variance (n − 1 in the denominator); 0 for fewer than 2.
double sample_variance(std::span<const double> values);

// Coefficient of variation of per-GPU values, in percent, with the seeds'
// quality bands: < 5 excellent, 5-10 good, 10-20 fair, >= 20 poor.
enum class BalanceBand { Excellent, Good, Fair, Poor };
std::string_view to_string(BalanceBand band);
BalanceBand balance_band(double cv_percent);

struct Balance {
  double cv_percent = 0;
  BalanceBand band = BalanceBand::Excellent;
  // Index of the one value furthest from the mean; none when that is a tie
  // (always, with two GPUs: both are equally far from their mean).
  std::optional<std::size_t> straggler;
};
// Needs at least two values. All-zero values count as perfectly balanced.
std::optional<Balance> load_balance(std::span<const double> per_gpu);

}  // namespace gpuwatch
