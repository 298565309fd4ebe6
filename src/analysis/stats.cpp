#include "analysis/stats.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpuwatch {

namespace {

struct Weighted {
  double value;
  double weight;
};

std::int64_t median_gap(std::span<const std::int64_t> times) {
  if (times.size() < 2) return 0;
  std::vector<std::int64_t> gaps;
  gaps.reserve(times.size() - 1);
  for (std::size_t i = 1; i < times.size(); ++i) gaps.push_back(times[i] - times[i - 1]);
  auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), mid, gaps.end());
  return *mid;
}

double quantile(const std::vector<Weighted>& sorted, double total, double q) {
  const double want = q * total;
  double seen = 0;
  for (const Weighted& w : sorted) {
    seen += w.weight;
    if (seen >= want) return w.value;
  }
  return sorted.back().value;
}

}  // namespace

std::vector<double> time_weights_ns(std::span<const std::int64_t> times, std::int64_t max_half_gap_ns) {
  std::vector<double> weights(times.size(), 1.0);
  if (times.size() < 2) return weights;
  const std::int64_t cap = max_half_gap_ns > 0 ? max_half_gap_ns : median_gap(times) * 3 / 2;
  auto half = [&](std::int64_t gap) { return static_cast<double>(std::min(gap / 2, std::max<std::int64_t>(cap, 1))); };
  for (std::size_t i = 0; i < times.size(); ++i) {
    double w = 0;
    if (i > 0) w += half(times[i] - times[i - 1]);
    if (i + 1 < times.size()) w += half(times[i + 1] - times[i]);
    weights[i] = w > 0 ? w : 1;  // identical timestamps still count
  }
  return weights;
}

std::optional<Summary> summarize(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                 std::int64_t max_half_gap_ns) {
  std::vector<std::int64_t> times;
  std::vector<Weighted> points;
  const std::size_t n = std::min(time_ns.size(), values.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(values[i])) continue;
    times.push_back(time_ns[i]);
    points.push_back({values[i], 0});
  }
  if (points.empty()) return std::nullopt;
  const std::vector<double> weights = time_weights_ns(times, max_half_gap_ns);
  for (std::size_t i = 0; i < points.size(); ++i) points[i].weight = weights[i];

  Summary s;
  s.count = points.size();
  double total = 0;
  double sum = 0;
  s.min = points[0].value;
  s.max = points[0].value;
  for (const Weighted& p : points) {
    total += p.weight;
    sum += p.value * p.weight;
    s.min = std::min(s.min, p.value);
    s.max = std::max(s.max, p.value);
  }
  s.mean = sum / total;
  double var = 0;
  for (const Weighted& p : points) var += p.weight * (p.value - s.mean) * (p.value - s.mean);
  s.std = std::sqrt(var / total);
  s.span_s = points.size() == 1 ? 0 : total / 1e9;

  std::sort(points.begin(), points.end(), [](const Weighted& a, const Weighted& b) { return a.value < b.value; });
  s.p50 = quantile(points, total, 0.50);
  s.p95 = quantile(points, total, 0.95);
  return s;
}

double sample_variance(std::span<const double> values) {
  if (values.size() < 2) return 0;
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double sum = 0;
  for (double v : values) sum += (v - mean) * (v - mean);
  return sum / static_cast<double>(values.size() - 1);
}

std::string_view to_string(BalanceBand band) {
  switch (band) {
    case BalanceBand::Excellent: return "excellent";
    case BalanceBand::Good: return "good";
    case BalanceBand::Fair: return "fair";
    case BalanceBand::Poor: return "poor";
  }
  return "unknown";
}

BalanceBand balance_band(double cv_percent) {
  if (cv_percent < 5) return BalanceBand::Excellent;
  if (cv_percent < 10) return BalanceBand::Good;
  if (cv_percent < 20) return BalanceBand::Fair;
  return BalanceBand::Poor;
}

std::optional<Balance> load_balance(std::span<const double> per_gpu) {
  if (per_gpu.size() < 2) return std::nullopt;
  double sum = 0;
  for (double v : per_gpu) sum += v;
  const double mean = sum / static_cast<double>(per_gpu.size());
  double var = 0;
  std::size_t furthest = 0;
  for (std::size_t i = 0; i < per_gpu.size(); ++i) {
    var += (per_gpu[i] - mean) * (per_gpu[i] - mean);
    if (std::abs(per_gpu[i] - mean) > std::abs(per_gpu[furthest] - mean)) furthest = i;
  }
  std::optional<std::size_t> straggler = furthest;
  const double top = std::abs(per_gpu[furthest] - mean);
  for (std::size_t i = 0; i < per_gpu.size(); ++i) {
    if (i != furthest && std::abs(std::abs(per_gpu[i] - mean) - top) <= 1e-9 * std::max(1.0, top)) straggler.reset();
  }
  const double std_dev = std::sqrt(var / static_cast<double>(per_gpu.size()));
  Balance b;
  b.cv_percent = mean == 0 ? 0 : std_dev / std::abs(mean) * 100;
  b.band = balance_band(b.cv_percent);
  b.straggler = straggler;
  return b;
}

}  // namespace gpuwatch
