#include "analysis/aggregate.h"

#include <cmath>
#include <limits>

namespace gpuwatch {

void mean_across(std::span<const TimedColumn> series, std::int64_t tick_tolerance_ns, std::int64_t max_age_ns,
                 std::vector<std::int64_t>& out_time_ns, std::vector<double>& out_values) {
  out_time_ns.clear();
  out_values.clear();
  constexpr std::int64_t kEnd = std::numeric_limits<std::int64_t>::max();
  const std::size_t k = series.size();
  std::vector<std::size_t> next(k, 0);
  std::vector<double> latest(k, std::numeric_limits<double>::quiet_NaN());
  std::vector<std::int64_t> latest_at(k, 0);
  const auto size_of = [&](std::size_t s) { return std::min(series[s].time_ns.size(), series[s].values.size()); };
  for (;;) {
    std::int64_t tick = kEnd;
    for (std::size_t s = 0; s < k; ++s) {
      if (next[s] < size_of(s)) tick = std::min(tick, series[s].time_ns[next[s]]);
    }
    if (tick == kEnd) break;
    const std::int64_t until = tick > kEnd - tick_tolerance_ns ? kEnd : tick + tick_tolerance_ns;
    double sum = 0;
    std::size_t count = 0;
    for (std::size_t s = 0; s < k; ++s) {
      const TimedColumn& c = series[s];
      for (; next[s] < size_of(s) && c.time_ns[next[s]] <= until; ++next[s]) {
        const double v = c.values[next[s]];
        if (!std::isfinite(v)) continue;
        latest[s] = v;
        latest_at[s] = c.time_ns[next[s]];
      }
      // In doubles: times from an imported file could be anything.
      const double age_ns = static_cast<double>(tick) - static_cast<double>(latest_at[s]);
      if (!std::isnan(latest[s]) && age_ns <= static_cast<double>(max_age_ns)) {
        sum += latest[s];
        ++count;
      }
    }
    out_time_ns.push_back(tick);
    out_values.push_back(count > 0 ? sum / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN());
  }
}

}  // namespace gpuwatch
