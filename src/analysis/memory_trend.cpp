#include "analysis/memory_trend.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "analysis/stats.h"

namespace gpuwatch {

namespace {

double weighted_mean(const PresentSamples& p, const std::vector<double>& w, std::size_t begin, std::size_t end) {
  double sum = 0;
  double total = 0;
  for (std::size_t i = begin; i < end; ++i) {
    sum += p.value[i] * w[i];
    total += w[i];
  }
  if (total > 0) return sum / total;
  // All weights zero (identical timestamps): a plain mean.
  for (std::size_t i = begin; i < end; ++i) sum += p.value[i];
  return sum / static_cast<double>(end - begin);
}

double slope_per_hour(const PresentSamples& p, const std::vector<double>& w) {
  // Time relative to the first sample keeps the sums well conditioned.
  double total = 0;
  double mean_t = 0;
  double mean_v = 0;
  for (std::size_t i = 0; i < p.value.size(); ++i) {
    const double t = static_cast<double>(p.time_ns[i] - p.time_ns[0]) / 3.6e12;
    total += w[i];
    mean_t += w[i] * t;
    mean_v += w[i] * p.value[i];
  }
  if (total <= 0) return 0;
  mean_t /= total;
  mean_v /= total;
  double cov = 0;
  double var = 0;
  for (std::size_t i = 0; i < p.value.size(); ++i) {
    const double dt = static_cast<double>(p.time_ns[i] - p.time_ns[0]) / 3.6e12 - mean_t;
    cov += w[i] * dt * (p.value[i] - mean_v);
    var += w[i] * dt * dt;
  }
  return var > 0 ? cov / var : 0;
}

// One pass with the window's maximum in a monotonic deque: each sample is
// compared with the highest level of the last `drop_window_ns`. After a fall
// the window restarts at the new level, so a fall over several samples is
// one drop, extended while it goes on, not one drop per intermediate level.
std::vector<MemoryDrop> find_drops(const PresentSamples& p, const MemoryTrendOptions& o) {
  std::vector<MemoryDrop> drops;
  std::deque<std::size_t> window;  // indices, values decreasing
  std::int64_t last_fall_ns = 0;
  for (std::size_t i = 0; i < p.value.size(); ++i) {
    while (!window.empty() && p.time_ns[i] - p.time_ns[window.front()] > o.drop_window_ns) window.pop_front();
    if (!window.empty()) {
      const double high = p.value[window.front()];
      const double fall = high - p.value[i];
      const bool continues = !drops.empty() && p.time_ns[i] - last_fall_ns <= o.drop_window_ns &&
                             drops.back().to_bytes == high;
      if (continues && fall > 0) {
        drops.back().to_bytes = p.value[i];
        last_fall_ns = p.time_ns[i];
        window.clear();
      } else if (fall >= o.min_drop_bytes && fall >= o.min_drop_fraction * high) {
        drops.push_back({p.time_ns[window.front()], high, p.value[i]});
        last_fall_ns = p.time_ns[i];
        window.clear();
      }
    }
    while (!window.empty() && p.value[window.back()] <= p.value[i]) window.pop_back();
    window.push_back(i);
  }
  return drops;
}

}  // namespace

std::vector<MemoryDrop> memory_drops(std::span<const std::int64_t> time_ns, std::span<const double> used_bytes,
                                     const MemoryTrendOptions& options) {
  return find_drops(present_samples(time_ns, used_bytes), options);
}

std::optional<MemoryTrend> memory_trend(std::span<const std::int64_t> time_ns, std::span<const double> used_bytes,
                                        std::optional<double> total_bytes, const MemoryTrendOptions& options) {
  const PresentSamples p = present_samples(time_ns, used_bytes);
  const std::size_t n = p.value.size();
  if (n < 10) return std::nullopt;
  const std::vector<double> w = time_weights_s(p.time_ns);
  MemoryTrend t;
  t.span_s = static_cast<double>(p.time_ns.back() - p.time_ns.front()) / 1e9;
  t.slope_bytes_per_hour = slope_per_hour(p, w);
  // Tenths by time, not by sample count, so a sampling stall does not shift them.
  const std::int64_t first = p.time_ns.front();
  const std::int64_t tenth = (p.time_ns.back() - first) / 10;
  const auto first_end = static_cast<std::size_t>(
      std::upper_bound(p.time_ns.begin(), p.time_ns.end(), first + tenth) - p.time_ns.begin());
  const auto last_begin = static_cast<std::size_t>(
      std::lower_bound(p.time_ns.begin(), p.time_ns.end(), p.time_ns.back() - tenth) - p.time_ns.begin());
  t.first_tenth_mean_bytes = weighted_mean(p, w, 0, std::max<std::size_t>(first_end, 1));
  t.last_tenth_mean_bytes = weighted_mean(p, w, std::min(last_begin, n - 1), n);
  t.growth_bytes = t.last_tenth_mean_bytes - t.first_tenth_mean_bytes;
  if (total_bytes && *total_bytes > 0) t.growth_percent_of_total = t.growth_bytes / *total_bytes * 100;
  const double reference = total_bytes && *total_bytes > 0 ? *total_bytes : t.first_tenth_mean_bytes;
  t.leak_suspected = reference > 0 && t.growth_bytes > options.leak_growth_fraction * reference &&
                     t.slope_bytes_per_hour > 0;
  t.drops = find_drops(p, options);
  return t;
}

}  // namespace gpuwatch
