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

// Integer nanoseconds until the end, so that regular sampling gives exact weights.
std::vector<double> weights_ns(std::span<const std::int64_t> time_ns, std::int64_t max_half_gap_ns) {
  std::vector<double> weights(time_ns.size(), 0.0);
  if (time_ns.size() < 2) return weights;
  const std::int64_t cap = std::max<std::int64_t>(max_half_gap_ns > 0 ? max_half_gap_ns : median_gap(time_ns) * 3 / 2, 1);
  for (std::size_t i = 1; i < time_ns.size(); ++i) {
    const auto half = static_cast<double>(std::min((time_ns[i] - time_ns[i - 1]) / 2, cap));
    weights[i - 1] += half;
    weights[i] += half;
  }
  return weights;
}

// The smallest value whose cumulative weight (in value order) reaches
// `want`: the same answer as sorting and scanning, found by quickselect in
// expected linear time, because a long run has millions of samples per metric.
double weighted_select(std::span<Weighted> points, double want) {
  while (points.size() > 32) {
    const double a = points.front().value;
    const double b = points[points.size() / 2].value;
    const double c = points.back().value;
    const double pivot = std::max(std::min(a, b), std::min(std::max(a, b), c));
    auto less_end = std::partition(points.begin(), points.end(), [pivot](const Weighted& w) { return w.value < pivot; });
    auto equal_end = std::partition(less_end, points.end(), [pivot](const Weighted& w) { return w.value == pivot; });
    double below = 0;
    for (auto it = points.begin(); it != less_end; ++it) below += it->weight;
    if (want <= below && less_end != points.begin()) {
      points = points.first(static_cast<std::size_t>(less_end - points.begin()));
      continue;
    }
    double at = 0;
    for (auto it = less_end; it != equal_end; ++it) at += it->weight;
    if (want <= below + at || equal_end == points.end()) return pivot;
    want -= below + at;
    points = points.subspan(static_cast<std::size_t>(equal_end - points.begin()));
  }
  std::sort(points.begin(), points.end(), [](const Weighted& x, const Weighted& y) { return x.value < y.value; });
  double seen = 0;
  for (const Weighted& w : points) {
    seen += w.weight;
    if (seen >= want) return w.value;
  }
  return points.back().value;
}

}  // namespace

std::vector<double> time_weights_s(std::span<const std::int64_t> time_ns, std::int64_t max_half_gap_ns) {
  std::vector<double> weights = weights_ns(time_ns, max_half_gap_ns);
  for (double& w : weights) w /= 1e9;
  return weights;
}

const std::vector<double>& TimeAxis::dense_weights_ns() const {
  if (!dense_) dense_ = weights_ns(time_ns_, max_half_gap_ns_);
  return *dense_;
}

std::vector<double> time_weights_ns(std::span<const std::int64_t> times, std::int64_t max_half_gap_ns) {
  std::vector<double> weights = weights_ns(times, max_half_gap_ns);
  for (double& w : weights) {
    if (w <= 0) w = 1;  // a single sample, or identical timestamps, still count
  }
  return weights;
}

std::vector<double> time_weights(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                 std::int64_t max_half_gap_ns) {
  const std::size_t n = std::min(time_ns.size(), values.size());
  std::vector<std::int64_t> present;
  present.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isnan(values[i])) present.push_back(time_ns[i]);
  }
  const std::vector<double> dense = time_weights_ns(present, max_half_gap_ns);
  std::vector<double> weights(n, 0.0);
  for (std::size_t i = 0, k = 0; i < n; ++i) {
    if (!std::isnan(values[i])) weights[i] = dense[k++];
  }
  return weights;
}

std::optional<Moments> moments(std::span<const std::int64_t> time_ns, std::span<const double> values,
                               std::int64_t max_half_gap_ns) {
  return moments(TimeAxis(time_ns, max_half_gap_ns), values);
}

std::optional<Moments> moments(const TimeAxis& axis, std::span<const double> values) {
  const std::span<const std::int64_t> time_ns = axis.times();
  const std::size_t n = std::min(time_ns.size(), values.size());
  const std::span<const double> present = values.first(n);
  const bool dense =
      n == time_ns.size() && std::none_of(present.begin(), present.end(), [](double v) { return std::isnan(v); });
  std::vector<double> sparse;
  if (!dense) sparse = time_weights(time_ns, values, axis.max_half_gap_ns());
  const std::vector<double>& weights = dense ? axis.dense_weights_ns() : sparse;
  // Two passes, as summarize() adds them up: the same numbers, bit for bit,
  // and no division per sample.
  Moments m;
  double total = 0;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = values[i];
    if (std::isnan(x)) continue;
    const double w = weights[i] > 0 ? weights[i] : 1;  // as time_weights(): identical timestamps still count
    if (m.count++ == 0) {
      m.min = m.max = x;
    } else {
      m.min = std::min(m.min, x);
      m.max = std::max(m.max, x);
    }
    total += w;
    sum += x * w;
  }
  if (m.count == 0) return std::nullopt;
  m.mean = sum / total;
  double var = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = values[i];
    if (std::isnan(x)) continue;
    const double w = weights[i] > 0 ? weights[i] : 1;
    var += w * (x - m.mean) * (x - m.mean);
  }
  m.std = std::sqrt(var / total);
  m.span_s = m.count == 1 ? 0 : total / 1e9;
  return m;
}

std::optional<Summary> summarize(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                 std::int64_t max_half_gap_ns) {
  return summarize(TimeAxis(time_ns, max_half_gap_ns), values);
}

std::optional<Summary> summarize(const TimeAxis& axis, std::span<const double> values) {
  const std::span<const std::int64_t> time_ns = axis.times();
  const std::size_t n = std::min(time_ns.size(), values.size());
  std::vector<Weighted> points;
  points.reserve(n);
  bool dense = n == time_ns.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(values[i])) {
      dense = false;
      continue;
    }
    points.push_back({values[i], 0});
  }
  if (points.empty()) return std::nullopt;

  if (points.size() == 1) {
    points[0].weight = 1;
  } else {
    std::vector<double> sparse;
    if (!dense) {
      std::vector<std::int64_t> times;
      times.reserve(points.size());
      for (std::size_t i = 0; i < n; ++i) {
        if (!std::isnan(values[i])) times.push_back(time_ns[i]);
      }
      sparse = weights_ns(times, axis.max_half_gap_ns());
    }
    const std::vector<double>& weights = dense ? axis.dense_weights_ns() : sparse;
    // Identical timestamps still count.
    for (std::size_t i = 0; i < points.size(); ++i) points[i].weight = weights[i] > 0 ? weights[i] : 1;
  }

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

  s.p50 = weighted_select(points, 0.50 * total);
  s.p95 = weighted_select(points, 0.95 * total);
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
