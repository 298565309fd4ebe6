#include "core/time_weights.h"

#include <algorithm>

namespace gpuwatch {

std::int64_t default_half_gap_cap_ns(std::span<const std::int64_t> time_ns) {
  std::int64_t median = 0;
  if (time_ns.size() >= 2) {
    std::vector<std::int64_t> gaps;
    gaps.reserve(time_ns.size() - 1);
    for (std::size_t i = 1; i < time_ns.size(); ++i) gaps.push_back(time_ns[i] - time_ns[i - 1]);
    auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
    std::nth_element(gaps.begin(), mid, gaps.end());
    median = *mid;
  }
  return std::max<std::int64_t>(median * 3 / 2, 1);
}

std::vector<double> half_gap_weights_ns(std::span<const std::int64_t> time_ns, std::int64_t max_half_gap_ns) {
  std::vector<double> weights(time_ns.size(), 0.0);
  if (time_ns.size() < 2) return weights;
  const std::int64_t cap = max_half_gap_ns > 0 ? max_half_gap_ns : default_half_gap_cap_ns(time_ns);
  for (std::size_t i = 1; i < time_ns.size(); ++i) {
    const auto half = static_cast<double>(std::min((time_ns[i] - time_ns[i - 1]) / 2, cap));
    weights[i - 1] += half;
    weights[i] += half;
  }
  return weights;
}

}  // namespace gpuwatch
