#include "analysis/downsample.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace gpuwatch {

namespace {

constexpr double kGap = std::numeric_limits<double>::quiet_NaN();
constexpr std::ptrdiff_t kNone = -1;

// A sample that can be drawn. NaN values are gaps; infinities and samples
// without a time are neither drawn nor gaps.
bool drawable(double t, double v) { return std::isfinite(t) && std::isfinite(v); }

struct Candidate {
  std::ptrdiff_t index = kNone;
  std::ptrdiff_t nan_before = kNone;  // the last NaN sample before it
};

// Writes kept samples in time order; a NaN sample between the previously
// kept sample and this one becomes a gap marker, so no gap is ever bridged.
class Emitter {
 public:
  Emitter(std::span<const double> t, std::span<const double> v, std::vector<LinePoint>& out)
      : t_(t), v_(v), out_(out) {}

  void keep(const Candidate& c) {
    const auto i = static_cast<std::size_t>(c.index);
    if (last_ != kNone && c.nan_before > last_) out_.push_back({t_[static_cast<std::size_t>(c.nan_before)], kGap});
    out_.push_back({t_[i], v_[i]});
    last_ = c.index;
  }

 private:
  std::span<const double> t_;
  std::span<const double> v_;
  std::vector<LinePoint>& out_;
  std::ptrdiff_t last_ = kNone;
};

struct ValidRange {
  std::ptrdiff_t first = kNone;
  std::ptrdiff_t last = kNone;
  std::size_t count = 0;
};

// The first and last drawable samples only, found from each end: no pass
// over the whole series.
ValidRange valid_ends(std::span<const double> t, std::span<const double> v, std::size_t n) {
  ValidRange r;
  for (std::size_t i = 0; i < n; ++i) {
    if (!drawable(t[i], v[i])) continue;
    r.first = static_cast<std::ptrdiff_t>(i);
    break;
  }
  if (r.first == kNone) return r;
  for (std::size_t i = n; i-- > 0;) {
    if (!drawable(t[i], v[i])) continue;
    r.last = static_cast<std::ptrdiff_t>(i);
    break;
  }
  return r;
}

ValidRange valid_range(std::span<const double> t, std::span<const double> v, std::size_t n) {
  ValidRange r;
  for (std::size_t i = 0; i < n; ++i) {
    if (!drawable(t[i], v[i])) continue;
    if (r.first == kNone) r.first = static_cast<std::ptrdiff_t>(i);
    r.last = static_cast<std::ptrdiff_t>(i);
    ++r.count;
  }
  return r;
}

}  // namespace

std::vector<LinePoint> min_max_per_bucket(std::span<const double> t, std::span<const double> v,
                                          const BucketGrid& grid) {
  std::vector<LinePoint> out;
  const std::size_t n = std::min(t.size(), v.size());
  const ValidRange range = valid_ends(t, v, n);
  if (range.first == kNone || grid.count == 0) return out;

  const double span = grid.t_end - grid.t_begin;
  const double buckets_per_t = span > 0 ? static_cast<double>(grid.count) / span : 0;
  const auto bucket_of = [&](double time) -> std::size_t {
    const double b = std::floor((time - grid.t_begin) * buckets_per_t);
    if (!(b > 0)) return 0;  // also NaN
    return b >= static_cast<double>(grid.count) ? grid.count - 1 : static_cast<std::size_t>(b);
  };

  Emitter emit(t, v, out);
  Candidate lo, hi, first, last;
  const auto flush = [&] {
    std::array<Candidate, 4> picks{first, lo, hi, last};
    std::sort(picks.begin(), picks.end(), [](const Candidate& a, const Candidate& b) { return a.index < b.index; });
    std::ptrdiff_t kept = kNone;
    for (const Candidate& c : picks) {
      if (c.index == kNone || c.index == kept) continue;
      emit.keep(c);
      kept = c.index;
    }
    lo = hi = first = last = Candidate{};
  };

  std::size_t bucket = std::numeric_limits<std::size_t>::max();
  std::ptrdiff_t last_nan = kNone;
  for (auto i = range.first; i <= range.last; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (std::isnan(v[k])) {
      last_nan = i;
      continue;
    }
    if (!drawable(t[k], v[k])) continue;
    const std::size_t b = bucket_of(t[k]);
    if (b != bucket) {
      flush();
      bucket = b;
    }
    const Candidate c{i, last_nan};
    if (lo.index == kNone || v[k] < v[static_cast<std::size_t>(lo.index)]) lo = c;
    if (hi.index == kNone || v[k] > v[static_cast<std::size_t>(hi.index)]) hi = c;
    if (i == range.first) first = c;
    if (i == range.last) last = c;
  }
  flush();
  return out;
}

std::vector<LinePoint> lttb(std::span<const double> t, std::span<const double> v, std::size_t max_points) {
  std::vector<LinePoint> out;
  const std::size_t n = std::min(t.size(), v.size());
  const ValidRange range = valid_range(t, v, n);
  if (range.first == kNone) return out;
  max_points = std::max<std::size_t>(max_points, 3);

  Emitter emit(t, v, out);
  std::ptrdiff_t last_nan = kNone;
  if (range.count <= max_points) {
    for (auto i = range.first; i <= range.last; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (std::isnan(v[k])) {
        last_nan = i;
      } else if (drawable(t[k], v[k])) {
        emit.keep({i, last_nan});
      }
    }
    return out;
  }

  // Buckets split the samples strictly between the first and the last; each
  // holds at least one index since more samples are valid than max_points.
  const std::size_t buckets = max_points - 2;
  const auto inner = static_cast<double>(range.last - range.first - 1);
  const auto edge = [&](std::size_t j) {
    return range.first + 1 +
           static_cast<std::ptrdiff_t>(std::floor(static_cast<double>(j) * inner / static_cast<double>(buckets)));
  };

  emit.keep({range.first, kNone});
  std::ptrdiff_t kept = range.first;
  for (std::size_t j = 0; j < buckets; ++j) {
    const std::ptrdiff_t begin = edge(j);
    const std::ptrdiff_t end = edge(j + 1);
    // The next bucket's mean, or the last sample after the last bucket or
    // when the next bucket has no value.
    double next_t = t[static_cast<std::size_t>(range.last)];
    double next_v = v[static_cast<std::size_t>(range.last)];
    if (j + 1 < buckets) {
      double sum_t = 0;
      double sum_v = 0;
      std::size_t count = 0;
      for (auto i = end; i < edge(j + 2); ++i) {
        const auto k = static_cast<std::size_t>(i);
        if (!drawable(t[k], v[k])) continue;
        sum_t += t[k];
        sum_v += v[k];
        ++count;
      }
      if (count > 0) {
        next_t = sum_t / static_cast<double>(count);
        next_v = sum_v / static_cast<double>(count);
      }
    }
    const double at = t[static_cast<std::size_t>(kept)];
    const double av = v[static_cast<std::size_t>(kept)];
    Candidate best;
    double best_area = -1;
    for (auto i = begin; i < end; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (std::isnan(v[k])) {
        last_nan = i;
        continue;
      }
      if (!drawable(t[k], v[k])) continue;
      // Twice the triangle's area; only the comparison matters.
      const double area = std::abs((at - next_t) * (v[k] - av) - (at - t[k]) * (next_v - av));
      if (area > best_area) {
        best_area = area;
        best = {i, last_nan};
      }
    }
    if (best.index == kNone) continue;
    emit.keep(best);
    kept = best.index;
  }
  emit.keep({range.last, last_nan});
  return out;
}

double median_valid_interval(std::span<const double> t, std::span<const double> v) {
  const std::size_t n = std::min(t.size(), v.size());
  const ValidRange range = valid_range(t, v, n);
  if (range.count < 2) return 0;
  // Every stride-th interval: enough for a median, cheap on a long run.
  constexpr std::size_t kEnough = 4096;
  const std::size_t stride = std::max<std::size_t>(1, (range.count - 1) / kEnough);
  std::vector<double> intervals;
  intervals.reserve(std::min(range.count, kEnough + 1));
  double prev = kGap;
  std::size_t seen = 0;
  for (auto i = range.first; i <= range.last; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!drawable(t[k], v[k])) continue;
    if (!std::isnan(prev) && seen++ % stride == 0) intervals.push_back(t[k] - prev);
    prev = t[k];
  }
  auto mid = intervals.begin() + static_cast<std::ptrdiff_t>(intervals.size() / 2);
  std::nth_element(intervals.begin(), mid, intervals.end());
  return *mid;
}

void keep_valid_marking_gaps(std::span<const double> t, std::span<const double> v, double max_gap,
                             std::vector<double>& out_t, std::vector<double>& out_v) {
  out_t.clear();
  out_v.clear();
  const std::size_t n = std::min(t.size(), v.size());
  bool have_prev = false;
  double prev = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!drawable(t[i], v[i])) continue;
    if (have_prev && max_gap > 0 && t[i] - prev > max_gap) {
      out_t.push_back(prev + (t[i] - prev) / 2);
      out_v.push_back(kGap);
    }
    out_t.push_back(t[i]);
    out_v.push_back(v[i]);
    prev = t[i];
    have_prev = true;
  }
}

}  // namespace gpuwatch
