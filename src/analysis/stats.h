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

// How much time each sample stands for, in seconds: half the gap to each
// neighbour, each half capped at `max_half_gap_ns` (zero: 1.5 x the median
// gap). Detectors (idle gaps, throttling) use the same weights as the
// statistics, so "time throttled" and "mean" agree on what a sample is worth.
std::vector<double> time_weights_s(std::span<const std::int64_t> time_ns, std::int64_t max_half_gap_ns = 0);

// The samples of a column that have a value (NaN is absent), with their
// times: what detectors walk, since a gap in a column is not a sample. A
// column with no gap is viewed where it is (10 M samples are 160 MB to
// copy); one with gaps is copied without them. Moving keeps the views valid.
struct PresentSamples {
  std::span<const std::int64_t> time_ns;
  std::span<const double> value;

  PresentSamples() = default;
  PresentSamples(PresentSamples&&) = default;
  PresentSamples& operator=(PresentSamples&&) = default;
  PresentSamples(const PresentSamples&) = delete;
  PresentSamples& operator=(const PresentSamples&) = delete;

 private:
  friend PresentSamples present_samples(std::span<const std::int64_t>, std::span<const double>);
  std::vector<std::int64_t> owned_time_ns_;
  std::vector<double> owned_value_;
};
PresentSamples present_samples(std::span<const std::int64_t> time_ns, std::span<const double> values);

// NaN values are absent and skipped. A half-gap longer than `max_half_gap_ns`
// (the sampler was stopped, the machine suspended) is capped to it; zero
// means: cap at 1.5 x the median gap. Returns nullopt when no value exists.
std::optional<Summary> summarize(std::span<const std::int64_t> time_ns,
                                 std::span<const double> values,
                                 std::int64_t max_half_gap_ns = 0);

// One time axis shared by several columns (a device's metrics): the weights
// of samples where every column has a value are computed once, not once per
// column, which matters with millions of samples.
class TimeAxis {
 public:
  explicit TimeAxis(std::span<const std::int64_t> time_ns, std::int64_t max_half_gap_ns = 0)
      : time_ns_(time_ns), max_half_gap_ns_(max_half_gap_ns) {}
  [[nodiscard]] std::span<const std::int64_t> times() const { return time_ns_; }
  [[nodiscard]] std::int64_t max_half_gap_ns() const { return max_half_gap_ns_; }
  // Weights in ns when every sample counts; computed on first use.
  [[nodiscard]] const std::vector<double>& dense_weights_ns() const;

 private:
  std::span<const std::int64_t> time_ns_;
  std::int64_t max_half_gap_ns_;
  mutable std::optional<std::vector<double>> dense_;
};

// The same as summarize(time_ns, values, max_half_gap_ns) over the axis.
std::optional<Summary> summarize(const TimeAxis& axis, std::span<const double> values);

// The weight in nanoseconds that summarize() gives each sample of a series
// without absent values (times ascending), with the same gap cap. Lets other
// analyses (the bootstrap in compare) weigh samples exactly as the means do.
std::vector<double> time_weights_ns(std::span<const std::int64_t> time_ns, std::int64_t max_half_gap_ns = 0);

// Unweighted sample variance (n − 1 in the denominator); 0 for fewer than 2.
double sample_variance(std::span<const double> values);

// summarize() without its percentiles, without sorting: for callers that
// need only these over millions of samples (plots). The same weights and the
// same sums, so the same numbers.
struct Moments {
  std::size_t count = 0;
  double span_s = 0;
  double mean = 0;
  double std = 0;
  double min = 0;
  double max = 0;
};
std::optional<Moments> moments(std::span<const std::int64_t> time_ns, std::span<const double> values,
                               std::int64_t max_half_gap_ns = 0);
// The same over the axis: a column without absent values reuses its weights.
std::optional<Moments> moments(const TimeAxis& axis, std::span<const double> values);

// Each sample's weight in summarize(), in ns: half the gap to each neighbour
// with a value, capped the same way; 0 for absent (NaN) values. A lone value
// weighs 1. Lets other time-weighted views (histograms) agree with summarize().
std::vector<double> time_weights(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                 std::int64_t max_half_gap_ns = 0);

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
