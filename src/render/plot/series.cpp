#include "render/plot/series.h"

#include <algorithm>
#include <cmath>

namespace gpuwatch::plot {

namespace {
constexpr double kGapIntervals = 3;  // a stretch this many usual intervals long is a gap
}

double seconds_between(std::int64_t from_ns, std::int64_t to_ns) {
  return (static_cast<double>(to_ns) - static_cast<double>(from_ns)) / 1e9;
}

void elapsed_seconds(std::span<const std::int64_t> wall_ns, std::int64_t origin_ns, std::vector<double>& out) {
  out.resize(wall_ns.size());
  for (std::size_t i = 0; i < wall_ns.size(); ++i) out[i] = seconds_between(origin_ns, wall_ns[i]);
}

std::span<const double> metric_column(const DeviceSeries& series, DeviceMetric metric) {
  const auto i = static_cast<std::size_t>(metric);
  if (i >= series.values.size() || series.values[i].size() != series.wall_ns.size()) return {};
  return series.values[i];
}

void ValueRange::add(double v) {
  if (!std::isfinite(v)) return;
  lo = std::min(lo, v);
  hi = std::max(hi, v);
}

void ValueRange::add(const ValueRange& other) {
  if (other.empty()) return;
  add(other.lo);
  add(other.hi);
}

ValueRange finite_range(std::span<const double> values) {
  ValueRange r;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (const double v : values) {
    // False for NaN and the infinities; no branch on the usual path.
    const bool finite = v > -kInf && v < kInf;
    r.lo = finite && v < r.lo ? v : r.lo;
    r.hi = finite && v > r.hi ? v : r.hi;
  }
  return r;
}

BucketGrid pixel_columns(const Frame& frame) {
  return {frame.x.lo, frame.x.hi, static_cast<std::size_t>(std::max(1.0, std::ceil(frame.area.w)))};
}

Line LineBuilder::reduce(std::span<const double> t, std::span<const double> v, const BucketGrid& grid) {
  const double usual = median_valid_interval(t, v);
  keep_valid_marking_gaps(t, v, kGapIntervals * usual, t_, v_);
  Line line;
  const std::vector<LinePoint> kept = min_max_per_bucket(t_, v_, grid);
  line.t_s.reserve(kept.size());
  line.v.reserve(kept.size());
  for (const LinePoint& p : kept) {
    line.t_s.push_back(p.t);
    line.v.push_back(p.v);
  }
  return line;
}

std::vector<LinePoint> LineBuilder::points(const Line& line, double shift_s, const BucketGrid& grid) {
  if (shift_s == 0) return min_max_per_bucket(line.t_s, line.v, grid);
  t_.resize(line.t_s.size());
  for (std::size_t i = 0; i < line.t_s.size(); ++i) t_[i] = line.t_s[i] + shift_s;
  return min_max_per_bucket(t_, line.v, grid);
}

}  // namespace gpuwatch::plot
