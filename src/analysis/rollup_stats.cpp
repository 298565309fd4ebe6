#include "analysis/rollup_stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace gpuwatch {

std::optional<Summary> summarize(std::span<const ColumnRollup> minutes) { return summarize_merged(merge_rollups(minutes)); }

std::optional<Summary> summarize_merged(const ColumnRollup& all) {
  if (all.count == 0 || all.histogram.empty()) return std::nullopt;
  Summary s;
  s.count = all.count;
  s.mean = all.mean;
  s.std = std::sqrt(std::max(0.0, all.m2 / all.weight_ns));
  s.min = all.min;
  s.max = all.max;
  s.span_s = all.count == 1 ? 0 : all.weight_ns / 1e9;
  // As weighted_select: the smallest value whose cumulative weight reaches
  // each share of the total. A bucket's representative may lie outside the
  // values seen; the true quantile does not.
  const std::array<double, 2> wants{0.50 * all.weight_ns, 0.95 * all.weight_ns};
  std::array<double, 2> quantiles{all.histogram.back().value, all.histogram.back().value};
  double seen = 0;
  std::size_t k = 0;
  for (const RollupBin& b : all.histogram) {
    seen += b.weight_ns;
    while (k < wants.size() && seen >= wants[k]) quantiles[k++] = b.value;
    if (k == wants.size()) break;
  }
  s.p50 = std::clamp(quantiles[0], s.min, s.max);
  s.p95 = std::clamp(quantiles[1], s.min, s.max);
  return s;
}

std::optional<ThrottleReport> throttle_time(std::span<const ColumnRollup> minutes) {
  return throttle_time_merged(merge_rollups(minutes));
}

std::optional<ThrottleReport> throttle_time_merged(const ColumnRollup& all) {
  if (!all.exact) return std::nullopt;
  std::vector<WeightedMask> masks;
  masks.reserve(all.histogram.size());
  for (const RollupBin& b : all.histogram) {
    if (b.value < 0 || b.value != std::floor(b.value)) return std::nullopt;
    masks.push_back({static_cast<std::uint64_t>(b.value), b.weight_ns / 1e9});
  }
  return throttle_time(masks);
}

}  // namespace gpuwatch
