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

// Calls visit(i, weight_ns) for every sample with a value, in order, with
// the weights summarize() uses: half the gap to each neighbour with a value,
// each half capped at max_half_gap_ns (0: 1.5 x the median gap).
template <typename Visit>
void visit_weights(std::span<const std::int64_t> time_ns, std::span<const double> values,
                   std::int64_t max_half_gap_ns, Visit&& visit) {
  const std::size_t n = std::min(time_ns.size(), values.size());
  std::vector<std::int64_t> gaps;
  std::size_t first = n;
  for (std::size_t i = 0, prev = n; i < n; ++i) {
    if (std::isnan(values[i])) continue;
    if (prev < n) gaps.push_back(time_ns[i] - time_ns[prev]);
    if (first == n) first = i;
    prev = i;
  }
  if (first == n) return;
  if (gaps.empty()) {
    visit(first, 1.0);
    return;
  }
  std::int64_t cap = max_half_gap_ns;
  if (cap <= 0) {
    auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
    std::nth_element(gaps.begin(), mid, gaps.end());
    cap = *mid * 3 / 2;
  }
  const auto half = [&](std::int64_t gap) {
    return static_cast<double>(std::min(gap / 2, std::max<std::int64_t>(cap, 1)));
  };
  // Each sample's weight is known once its next neighbour is.
  std::size_t before = n;
  std::size_t current = first;
  const auto finish = [&](std::size_t after) {
    double w = 0;
    if (before < n) w += half(time_ns[current] - time_ns[before]);
    if (after < n) w += half(time_ns[after] - time_ns[current]);
    visit(current, w > 0 ? w : 1.0);  // identical timestamps still count
  };
  for (std::size_t i = first + 1; i < n; ++i) {
    if (std::isnan(values[i])) continue;
    finish(i);
    before = current;
    current = i;
  }
  finish(n);
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

std::vector<double> time_weights(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                 std::int64_t max_half_gap_ns) {
  std::vector<double> weights(std::min(time_ns.size(), values.size()), 0.0);
  visit_weights(time_ns, values, max_half_gap_ns, [&](std::size_t i, double w) { weights[i] = w; });
  return weights;
}

std::optional<Moments> moments(std::span<const std::int64_t> time_ns, std::span<const double> values,
                               std::int64_t max_half_gap_ns) {
  Moments m;
  double total = 0;
  double spread = 0;  // weighted sum of squared deviations, updated as in West (1979)
  visit_weights(time_ns, values, max_half_gap_ns, [&](std::size_t i, double w) {
    const double x = values[i];
    if (m.count++ == 0) {
      m.min = m.max = x;
    } else {
      m.min = std::min(m.min, x);
      m.max = std::max(m.max, x);
    }
    total += w;
    const double delta = x - m.mean;
    m.mean += delta * w / total;
    spread += w * delta * (x - m.mean);
  });
  if (m.count == 0) return std::nullopt;
  m.std = std::sqrt(std::max(0.0, spread / total));
  m.span_s = m.count == 1 ? 0 : total / 1e9;
  return m;
}

std::optional<Summary> summarize(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                 std::int64_t max_half_gap_ns) {
  const std::vector<double> weights = time_weights(time_ns, values, max_half_gap_ns);
  std::vector<Weighted> points;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (!std::isnan(values[i])) points.push_back({values[i], weights[i]});
  }
  if (points.empty()) return std::nullopt;

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
