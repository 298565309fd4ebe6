#include "analysis/histogram.h"

#include <cmath>

#include "analysis/stats.h"

namespace gpuwatch {

std::vector<double> time_share_histogram(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                         const HistogramBins& bins) {
  std::vector<double> shares(bins.count, 0.0);
  if (bins.count == 0 || !(bins.width > 0)) return shares;
  const std::vector<double> weights = time_weights(time_ns, values);
  double total = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (std::isnan(values[i]) || weights[i] <= 0) continue;
    const double position = std::floor((values[i] - bins.lo) / bins.width);
    std::size_t bin = 0;
    if (position >= static_cast<double>(bins.count)) {
      bin = bins.count - 1;
    } else if (position > 0) {
      bin = static_cast<std::size_t>(position);
    }
    shares[bin] += weights[i];
    total += weights[i];
  }
  if (total > 0) {
    for (double& s : shares) s /= total;
  }
  return shares;
}

}  // namespace gpuwatch
