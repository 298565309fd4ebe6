#include "analysis/stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/time_weights.h"

namespace gpuwatch {

namespace {

struct Weighted {
  double value;
  double weight;
};

// Integer nanoseconds until the end, so that regular sampling gives exact weights.
std::vector<double> weights_ns(std::span<const std::int64_t> time_ns, std::int64_t max_half_gap_ns) {
  return half_gap_weights_ns(time_ns, max_half_gap_ns);
}

// For each of `wants` (ascending), the smallest value whose cumulative weight
// in value order reaches it: the answers of sorting and scanning, found by a
// quickselect that partitions once for all quantiles while they agree, in
// expected linear time (a long run has millions of samples per metric).
void weighted_select(std::span<Weighted> points, std::span<const double> wants, std::span<double> out) {
  if (wants.empty()) return;
  if (points.size() <= 32) {
    std::sort(points.begin(), points.end(), [](const Weighted& x, const Weighted& y) { return x.value < y.value; });
    double seen = 0;
    std::size_t k = 0;
    for (const Weighted& w : points) {
      seen += w.weight;
      while (k < wants.size() && seen >= wants[k]) out[k++] = w.value;
    }
    for (; k < wants.size(); ++k) out[k] = points.back().value;
    return;
  }
  const double a = points.front().value;
  const double b = points[points.size() / 2].value;
  const double c = points.back().value;
  const double pivot = std::max(std::min(a, b), std::min(std::max(a, b), c));
  // One pass, three parts: [0, lt) below the pivot, [lt, gt) equal, [gt, n) above.
  std::size_t lt = 0;
  std::size_t i = 0;
  std::size_t gt = points.size();
  double below = 0;
  double at = 0;
  while (i < gt) {
    const double v = points[i].value;
    if (v < pivot) {
      below += points[i].weight;
      std::swap(points[lt++], points[i++]);
    } else if (v > pivot) {
      std::swap(points[i], points[--gt]);
    } else {
      at += points[i++].weight;
    }
  }
  std::size_t k = 0;
  while (k < wants.size() && lt > 0 && wants[k] <= below) ++k;
  weighted_select(points.first(lt), wants.first(k), out.first(k));
  while (k < wants.size() && (wants[k] <= below + at || gt == points.size())) out[k++] = pivot;
  if (k == wants.size()) return;
  std::vector<double> rest(wants.begin() + static_cast<std::ptrdiff_t>(k), wants.end());
  for (double& w : rest) w -= below + at;
  weighted_select(points.subspan(gt), rest, out.subspan(k));
}

// The same answers as weighted_select with less work on millions of points:
// one pass spreads the weights over buckets of the value range, which tells
// the bucket holding each quantile; only those buckets' points are then
// selected from. Weights are whole nanoseconds, so the bucket sums are exact
// and the answer cannot differ from sorting and scanning.
void bucketed_select(std::span<const Weighted> points, double min, double max, std::span<const double> wants,
                     std::span<double> out) {
  constexpr std::size_t kBuckets = 4096;
  if (points.size() <= 4 * kBuckets || !(max > min)) {
    std::vector<Weighted> copy(points.begin(), points.end());
    weighted_select(copy, wants, out);
    return;
  }
  const double per_value = static_cast<double>(kBuckets) / (max - min);
  const auto bucket = [&](double v) {
    return std::min(kBuckets - 1, static_cast<std::size_t>((v - min) * per_value));
  };
  std::vector<double> weight(kBuckets, 0.0);
  for (const Weighted& p : points) weight[bucket(p.value)] += p.weight;
  for (std::size_t k = 0; k < wants.size(); ++k) {
    double before = 0;
    std::size_t b = 0;
    while (b + 1 < kBuckets && before + weight[b] < wants[k]) before += weight[b++];
    std::vector<Weighted> inside;
    for (const Weighted& p : points) {
      if (bucket(p.value) == b) inside.push_back(p);
    }
    const std::array<double, 1> want{wants[k] - before};
    weighted_select(inside, want, out.subspan(k, 1));
  }
}

}  // namespace

PresentSamples present_samples(std::span<const std::int64_t> time_ns, std::span<const double> values) {
  PresentSamples p;
  const std::size_t n = std::min(time_ns.size(), values.size());
  const auto absent = static_cast<std::size_t>(
      std::count_if(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n), [](double v) { return std::isnan(v); }));
  if (absent == 0) {
    p.time_ns = time_ns.first(n);
    p.value = values.first(n);
    return p;
  }
  p.owned_time_ns_.reserve(n - absent);
  p.owned_value_.reserve(n - absent);
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(values[i])) continue;
    p.owned_time_ns_.push_back(time_ns[i]);
    p.owned_value_.push_back(values[i]);
  }
  p.time_ns = p.owned_time_ns_;
  p.value = p.owned_value_;
  return p;
}

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

  const std::array<double, 2> wants{0.50 * total, 0.95 * total};
  std::array<double, 2> quantiles{};
  bucketed_select(points, s.min, s.max, wants, quantiles);
  s.p50 = quantiles[0];
  s.p95 = quantiles[1];
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
