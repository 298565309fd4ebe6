#include "analysis/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "analysis/stats.h"

namespace gpuwatch {

namespace {

// Sample autocovariances for lags 0..max_lag (the biased 1/n estimator,
// which keeps the estimated spectrum non-negative).
std::vector<double> autocovariances(std::span<const double> x, std::size_t max_lag) {
  const std::size_t n = x.size();
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(n);
  std::vector<double> gamma(max_lag + 1, 0.0);
  for (std::size_t k = 0; k <= max_lag && k < n; ++k) {
    double sum = 0;
    for (std::size_t t = 0; t + k < n; ++t) sum += (x[t] - mean) * (x[t + k] - mean);
    gamma[k] = sum / static_cast<double>(n);
  }
  return gamma;
}

// The flat-top (trapezoid) lag window: 1 up to half of M, then down to 0 at M.
double flat_top(double t) {
  t = std::abs(t);
  if (t <= 0.5) return 1;
  if (t <= 1) return 2 * (1 - t);
  return 0;
}

// x % n exactly, without a division: the 64-bit divide took as long as the
// rest of a bootstrap draw. q below never exceeds x / n by more than 2, so
// two subtractions at most put the remainder in range.
class Remainder {
 public:
  explicit Remainder(std::uint64_t n) : n_(n), reciprocal_(~std::uint64_t{0} / n) {}
  std::uint64_t of(std::uint64_t x) const {
    __extension__ using Wide = unsigned __int128;  // GCC and Clang: a 64x64 -> 128-bit multiply
    const auto q = static_cast<std::uint64_t>((static_cast<Wide>(x) * reciprocal_) >> 64);
    std::uint64_t r = x - q * n_;
    while (r >= n_) r -= n_;
    return r;
  }

 private:
  std::uint64_t n_;
  std::uint64_t reciprocal_;
};

}  // namespace

double BinnedSeries::mean_bin_s() const {
  if (values.empty()) return 0;
  double total = 0;
  for (double w : weights_ns) total += w;
  return total / static_cast<double>(values.size()) / 1e9;
}

BinnedSeries bin_series(std::span<const std::int64_t> time_ns, std::span<const double> values,
                        std::size_t max_points) {
  const std::size_t n = std::min(time_ns.size(), values.size());
  if (n == 0) return {};
  const std::vector<double> weights = time_weights_ns(time_ns.first(n));
  return bin_weighted(values.first(n), weights, n, max_points);
}

BinnedSeries bin_weighted(std::span<const double> values, std::span<const double> weights_ns, std::size_t samples,
                          std::size_t max_points) {
  BinnedSeries out;
  const std::size_t n = std::min(values.size(), weights_ns.size());
  out.samples = samples;
  if (n == 0) return out;
  const std::size_t points = std::max<std::size_t>(max_points, 1);
  out.per_bin = (n + points - 1) / points;
  for (std::size_t begin = 0; begin < n; begin += out.per_bin) {
    const std::size_t end = std::min(n, begin + out.per_bin);
    double weighted = 0;
    double weight = 0;
    for (std::size_t i = begin; i < end; ++i) {
      weighted += values[i] * weights_ns[i];
      weight += weights_ns[i];
    }
    if (weight <= 0) continue;  // points without time (never from summarize()'s weights)
    out.values.push_back(weighted / weight);
    out.weights_ns.push_back(weight);
  }
  return out;
}

BlockLength politis_white_block_length(std::span<const double> x) {
  const std::size_t n = x.size();
  const auto cube_root_rule = [n] {
    return BlockLength{std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(std::cbrt(static_cast<double>(n))))),
                       true};
  };
  if (n > 0 && std::all_of(x.begin(), x.end(), [&](double v) { return v == x[0]; })) {
    return BlockLength{1, false};  // constant: nothing to preserve
  }
  if (n < 8) return cube_root_rule();
  const double nd = static_cast<double>(n);
  // Lags to look at, the significance band and how many insignificant lags
  // in a row end the correlogram: the values Politis and White recommend.
  const auto run_length = static_cast<std::size_t>(std::max(5.0, std::ceil(std::sqrt(std::log10(nd)))));
  const std::size_t max_lag = std::min(n - 1, static_cast<std::size_t>(std::ceil(std::sqrt(nd))) + run_length);
  const double band = 2 * std::sqrt(std::log10(nd) / nd);
  const std::vector<double> gamma = autocovariances(x, max_lag);
  if (gamma[0] <= 0) return BlockLength{1, false};
  const auto rho = [&](std::size_t k) { return gamma[k] / gamma[0]; };

  // m: the first lag after which `run_length` autocorrelations in a row are
  // insignificant; when there is none, the last significant lag.
  std::optional<std::size_t> m;
  for (std::size_t candidate = 0; candidate + run_length <= max_lag && !m; ++candidate) {
    bool quiet = true;
    for (std::size_t j = 1; j <= run_length && quiet; ++j) quiet = std::abs(rho(candidate + j)) < band;
    if (quiet) m = candidate;
  }
  if (!m) {
    m = 0;
    for (std::size_t k = 1; k <= max_lag; ++k) {
      if (std::abs(rho(k)) >= band) m = k;
    }
  }
  const std::size_t window = std::min(2 * *m, max_lag);
  if (window == 0) return BlockLength{1, false};  // no significant autocorrelation: white noise

  double g0 = gamma[0];  // spectral density at frequency 0 (times 2π)
  double g = 0;          // its first-moment counterpart, Σ|k|λ(k/M)γ(k)
  for (std::size_t k = 1; k <= window; ++k) {
    const double lambda = flat_top(static_cast<double>(k) / static_cast<double>(window));
    g0 += 2 * lambda * gamma[k];
    g += 2 * lambda * static_cast<double>(k) * gamma[k];
  }
  // Negative dependence dominates: resampling single points overstates the
  // variance of the mean, which errs on the safe (wider) side.
  if (g0 <= 0) return BlockLength{1, false};
  const double d_circular = 4.0 / 3.0 * g0 * g0;
  const double block = std::cbrt(2 * g * g / d_circular) * std::cbrt(nd);
  const double cap = std::ceil(std::min(3 * std::sqrt(nd), nd / 3));
  return BlockLength{static_cast<std::size_t>(std::clamp(std::round(block), 1.0, cap)), false};
}

std::vector<double> circular_block_bootstrap_means(const BinnedSeries& series, std::size_t block_points,
                                                   std::size_t replicates, std::uint64_t seed) {
  const std::size_t n = series.values.size();
  std::vector<double> means;
  if (n == 0) return means;
  const std::size_t block = std::clamp<std::size_t>(block_points, 1, n);
  // Prefix sums of weight·value and weight make any block sum O(1). Values
  // are taken relative to the first one so that sums of large numbers
  // (bytes times nanoseconds) lose no precision, and a constant series
  // gives exactly its value back.
  const double reference = series.values.front();
  std::vector<double> weighted(n + 1, 0.0);
  std::vector<double> weight(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    weighted[i + 1] = weighted[i] + (series.values[i] - reference) * series.weights_ns[i];
    weight[i + 1] = weight[i] + series.weights_ns[i];
  }
  const auto range_sum = [n](const std::vector<double>& prefix, std::size_t start, std::size_t length) {
    if (start + length <= n) return prefix[start + length] - prefix[start];
    return (prefix[n] - prefix[start]) + prefix[start + length - n];
  };
  // mt19937_64's output is fixed by the standard (unlike the standard
  // distributions), so the same seed gives the same intervals everywhere.
  std::mt19937_64 rng(seed);
  const Remainder modulo_n(n);
  const std::size_t blocks = (n + block - 1) / block;
  means.reserve(replicates);
  for (std::size_t r = 0; r < replicates; ++r) {
    double sum = 0;
    double total_weight = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t start = modulo_n.of(rng());  // bias ~n/2^64: none that matters
      const std::size_t length = b + 1 < blocks ? block : n - b * block;
      sum += range_sum(weighted, start, length);
      total_weight += range_sum(weight, start, length);
    }
    means.push_back(reference + sum / total_weight);
  }
  return means;
}

double quantile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace gpuwatch
