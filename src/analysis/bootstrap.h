// Uncertainty of a time-weighted mean when samples are autocorrelated.
//
// Samples a GPU monitor takes every 50 ms are far from independent: memory
// stays put for minutes, utilization follows the training loop. An interval
// that treats them as independent (±1.96·σ/√n) is far too narrow and calls
// every difference "real". The circular block bootstrap resamples whole
// blocks of consecutive samples, so the dependence inside a block survives;
// the block length is chosen from the data.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gpuwatch {

// A series ready for resampling: consecutive samples merged into at most
// max_points bins, each bin its time-weighted mean and the time it covers.
struct BinnedSeries {
  std::vector<double> values;
  std::vector<double> weights_ns;
  std::size_t samples = 0;       // samples before binning
  std::size_t per_bin = 1;       // samples merged into one bin (the last may hold fewer)
  [[nodiscard]] double mean_bin_s() const;  // time one bin stands for, on average
};

// Bins of `per_bin` consecutive samples with per_bin = ceil(n / max_points),
// weighted as summarize() weighs them: the bootstrap mean of the binned
// series then has the same centre as the time-weighted mean, and the cost of
// what follows is bounded by max_points, not by the length of the run.
// time_ns ascending, values without NaN.
BinnedSeries bin_series(std::span<const std::int64_t> time_ns, std::span<const double> values,
                        std::size_t max_points);

// The same binning of points that already carry their time weights (the
// per-minute means of `compare` over rollups): consecutive points merged,
// ceil(n / max_points) to a bin, each bin their weighted mean and summed
// weight. `samples` is what the points stand for, kept for the record.
BinnedSeries bin_weighted(std::span<const double> values, std::span<const double> weights_ns, std::size_t samples,
                          std::size_t max_points);

struct BlockLength {
  std::size_t points = 1;  // in bins
  // True when there were too few points (under 8) to estimate the
  // autocorrelation and the block is n^(1/3) points, the rate-optimal order
  // for block bootstraps of a mean.
  bool fallback = false;
};

// Politis and White's automatic block length (2004; with the correction of
// Patton, Politis and White 2009) for the circular block bootstrap of a
// mean. Chosen over "the lag where the autocorrelation falls below 1/e"
// because it estimates the block that minimizes the error of the variance
// estimate, using a flat-top lag window over the sample autocorrelations up
// to the first lag after which they stay insignificant; it gives 1 for
// white noise and long blocks for slowly varying series. Capped at
// min(3·√n, n/3). The autocorrelation treats bins as evenly spaced.
BlockLength politis_white_block_length(std::span<const double> values);

// `replicates` bootstrap means of the series: each replicate joins
// ceil(n/L) blocks of L consecutive bins, starting at uniformly drawn bins
// and wrapping around the end (so every bin is equally likely to be drawn),
// truncated to n bins, and takes their time-weighted mean. Deterministic for
// a given seed. O(replicates · n / L) with prefix sums.
std::vector<double> circular_block_bootstrap_means(const BinnedSeries& series, std::size_t block_points,
                                                   std::size_t replicates, std::uint64_t seed);

// Linear interpolation between order statistics; `sorted` ascending, q in [0, 1].
double quantile_sorted(std::span<const double> sorted, double q);

}  // namespace gpuwatch
