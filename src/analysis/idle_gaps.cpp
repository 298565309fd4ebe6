#include "analysis/idle_gaps.h"

#include <algorithm>
#include <cmath>

#include "analysis/stats.h"

namespace gpuwatch {

namespace {

double median(std::vector<double> v) {
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

std::optional<IdleGapReport> find_idle_gaps(std::span<const std::int64_t> time_ns,
                                            std::span<const double> util_percent, const IdleGapOptions& options) {
  const PresentSamples p = present_samples(time_ns, util_percent);
  const auto idle = [&](std::size_t i) { return p.value[i] < options.idle_below_percent; };
  std::size_t first_busy = 0;
  while (first_busy < p.value.size() && idle(first_busy)) ++first_busy;
  if (first_busy == p.value.size()) return std::nullopt;
  std::size_t last_busy = p.value.size() - 1;
  while (idle(last_busy)) --last_busy;

  const std::vector<double> weight = time_weights_s(p.time_ns, options.max_half_gap_ns);
  IdleGapReport r;
  for (std::size_t i = 0; i < first_busy; ++i) r.leading_idle_s += weight[i];
  for (std::size_t i = last_busy + 1; i < p.value.size(); ++i) r.trailing_idle_s += weight[i];
  r.first_busy_ns = p.time_ns[first_busy];
  r.last_busy_ns = p.time_ns[last_busy];
  r.busy_span_s = static_cast<double>(r.last_busy_ns - r.first_busy_ns) / 1e9;

  std::vector<IdleGap> gaps;
  for (std::size_t i = first_busy; i <= last_busy; ++i) {
    if (!idle(i)) continue;
    // The gap began half-way between the last busy sample and this one.
    IdleGap gap{p.time_ns[i] - (p.time_ns[i] - p.time_ns[i - 1]) / 2, 0};
    for (; i <= last_busy && idle(i); ++i) gap.duration_s += weight[i];
    gaps.push_back(gap);
  }
  r.count = gaps.size();
  for (const IdleGap& g : gaps) {
    r.total_s += g.duration_s;
    r.longest_s = std::max(r.longest_s, g.duration_s);
  }
  if (gaps.size() >= kMinIdleGapsForPeriod) {
    std::vector<double> periods;
    for (std::size_t i = 1; i < gaps.size(); ++i) periods.push_back(static_cast<double>(gaps[i].start_ns - gaps[i - 1].start_ns) / 1e9);
    double sum = 0;
    double sum_sq = 0;
    for (double x : periods) {
      sum += x;
      sum_sq += x * x;
    }
    const double n = static_cast<double>(periods.size());
    const double mean = sum / n;
    r.typical_period_s = median(periods);
    r.period_cv = mean > 0 ? std::sqrt(std::max(0.0, sum_sq / n - mean * mean)) / mean : 0.0;
    r.regular = *r.period_cv < kRegularPeriodCv;
  }
  std::stable_sort(gaps.begin(), gaps.end(), [](const IdleGap& a, const IdleGap& b) { return a.duration_s > b.duration_s; });
  gaps.resize(std::min<std::size_t>(gaps.size(), 5));
  r.longest = std::move(gaps);
  return r;
}

}  // namespace gpuwatch
