// History graphs of block characters: one column per sample, the newest on
// the right, `rows` rows of eight levels each. A column with no value is
// blank, unlike a zero, which shows as the lowest block so an idle GPU is
// told apart from one that did not answer.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/metrics.h"
#include "core/live_snapshot.h"

namespace gpuwatch {

// The rows, top first, each exactly `columns` wide; values are drawn against
// [0, full_scale] (clamped) and the last `columns` of them are shown.
std::vector<std::string> block_graph(std::span<const double> values, double full_scale, std::size_t columns,
                                     std::size_t rows = 1);

// The last `count` values of `metric` on `device` (NaN where there is none),
// slow metrics carried forward from their last reading, as the panel shows
// them.
std::vector<double> metric_history(const LiveDevice& device, DeviceMetric metric, std::size_t count);

// Memory used as a share of the total, per sample: the graph of memory.
std::vector<double> memory_percent_history(const LiveDevice& device, std::size_t count);

// The time axis under a graph `columns` wide whose columns are
// `seconds_per_column` apart, the newest on the right: "now" under the last
// column, and the age at round ticks ("-30s", "-2m", "-1h") ending under
// theirs, as many as fit with room between them. Exactly `columns` wide.
std::string time_axis(std::size_t columns, double seconds_per_column);

// The seconds between the device's recent samples (the median gap of the
// last few), or `fallback` before it has two.
double seconds_per_sample(const LiveDevice& device, double fallback);

}  // namespace gpuwatch

namespace gpuwatch {

// A horizontal bar `columns` wide filled to `share` (0..1) in eighths of a
// column; blank when share is NaN.
std::string horizontal_bar(double share, std::size_t columns);

}  // namespace gpuwatch
