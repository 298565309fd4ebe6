#include "analysis/histogram.h"

#include <algorithm>
#include <cmath>

#include "analysis/stats.h"

namespace gpuwatch {

WeightedValues time_weighted_values(std::span<const std::int64_t> time_ns, std::span<const double> values) {
  const std::vector<double> weights = time_weights(time_ns, values);
  WeightedValues out;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) kept += !std::isnan(values[i]) && weights[i] > 0 ? 1 : 0;
  out.values.reserve(kept);
  out.weights_ns.reserve(kept);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (std::isnan(values[i]) || !(weights[i] > 0)) continue;
    out.values.push_back(values[i]);
    out.weights_ns.push_back(weights[i]);
  }
  return out;
}

std::vector<double> time_share_histogram(const WeightedValues& samples, const HistogramBins& bins) {
  std::vector<double> shares(bins.count, 0.0);
  if (bins.count == 0 || !(bins.width > 0)) return shares;
  const std::size_t n = std::min(samples.values.size(), samples.weights_ns.size());
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double position = std::floor((samples.values[i] - bins.lo) / bins.width);
    std::size_t bin = 0;
    if (position >= static_cast<double>(bins.count)) {
      bin = bins.count - 1;
    } else if (position > 0) {
      bin = static_cast<std::size_t>(position);
    }
    shares[bin] += samples.weights_ns[i];
    total += samples.weights_ns[i];
  }
  if (total > 0) {
    for (double& s : shares) s /= total;
  }
  return shares;
}

std::vector<double> time_share_histogram(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                         const HistogramBins& bins) {
  if (bins.count == 0 || !(bins.width > 0)) return std::vector<double>(bins.count, 0.0);
  return time_share_histogram(time_weighted_values(time_ns, values), bins);
}

}  // namespace gpuwatch
