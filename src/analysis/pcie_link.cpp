#include "analysis/pcie_link.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/stats.h"

namespace gpuwatch {

std::optional<PcieLinkReport> pcie_link(const PcieLinkInput& in) {
  const std::size_t n = std::min({in.time_ns.size(), in.util_percent.size(), in.gen.size(), in.width.size()});
  std::vector<std::size_t> rows;  // where the link was read
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isnan(in.gen[i]) && !std::isnan(in.width[i])) rows.push_back(i);
  }
  PcieLinkReport r;
  r.max_gen = in.max_gen.value_or(0);
  r.max_width = in.max_width.value_or(0);
  for (std::size_t i : rows) {  // without static facts, the best seen is the capability
    if (!in.max_gen) r.max_gen = std::max(r.max_gen, static_cast<int>(in.gen[i]));
    if (!in.max_width) r.max_width = std::max(r.max_width, static_cast<int>(in.width[i]));
  }
  if (rows.empty() || r.max_gen <= 0 || r.max_width <= 0) return std::nullopt;
  std::vector<std::int64_t> times;
  for (std::size_t i : rows) times.push_back(in.time_ns[i]);
  const std::vector<double> w = time_weights_s(times);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::size_t i = rows[k];
    if (std::isnan(in.util_percent[i]) || in.util_percent[i] < kBusyUtilPercent) continue;
    const int gen = static_cast<int>(in.gen[i]);
    const int width = static_cast<int>(in.width[i]);
    r.busy_s += w[k];
    r.worst_busy_gen = r.worst_busy_gen == 0 ? gen : std::min(r.worst_busy_gen, gen);
    r.worst_busy_width = r.worst_busy_width == 0 ? width : std::min(r.worst_busy_width, width);
    if (gen < r.max_gen || width < r.max_width) r.degraded_busy_s += w[k];
  }
  r.degraded_percent = r.busy_s > 0 ? r.degraded_busy_s / r.busy_s * 100 : 0;
  return r;
}

}  // namespace gpuwatch
