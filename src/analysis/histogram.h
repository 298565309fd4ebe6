// How long a metric spent in each range of values: the time-weighted
// distribution behind `plot --kind histogram`. Weights are summarize()'s, so
// the histogram and the report's percentiles describe the same thing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gpuwatch {

// count bins of equal width starting at lo.
struct HistogramBins {
  double lo = 0;
  double width = 1;
  std::size_t count = 0;
};

// Share of the time (the shares sum to 1) the values spent in each bin;
// values below or above the bins count in the first or last. All zeros when
// no value exists (NaN values are absent).
std::vector<double> time_share_histogram(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                         const HistogramBins& bins);

}  // namespace gpuwatch
