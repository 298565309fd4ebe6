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

// A series' present values, each with the time it stands for (summarize()'s
// weight, in ns). A plot keeps these for every GPU of a run, one GPU read at
// a time, and bins them once all are read: the bins depend on the range of
// the whole run.
struct WeightedValues {
  std::vector<double> values;
  std::vector<double> weights_ns;
};
// NaN values, and values that weigh nothing, are left out.
WeightedValues time_weighted_values(std::span<const std::int64_t> time_ns, std::span<const double> values);

// Share of the time (the shares sum to 1) the values spent in each bin;
// values below or above the bins count in the first or last. All zeros when
// no value exists (NaN values are absent).
std::vector<double> time_share_histogram(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                         const HistogramBins& bins);
// The same over values already weighed.
std::vector<double> time_share_histogram(const WeightedValues& samples, const HistogramBins& bins);

}  // namespace gpuwatch
