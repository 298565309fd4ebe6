#include "render/plot/series.h"

#include <algorithm>
#include <cmath>

namespace gpuwatch::plot {

namespace {
constexpr double kGapIntervals = 3;  // a stretch this many usual intervals long is a gap
}

std::int64_t time_origin_ns(const RunData& data) {
  std::int64_t origin = data.run.start_wall_ns;
  for (const DeviceSeries& d : data.devices) {
    if (!d.wall_ns.empty() && (origin == 0 || d.wall_ns.front() < origin)) origin = d.wall_ns.front();
  }
  return origin;
}

double seconds_between(std::int64_t from_ns, std::int64_t to_ns) {
  return (static_cast<double>(to_ns) - static_cast<double>(from_ns)) / 1e9;
}

double elapsed_end_s(const RunData& data, std::int64_t origin_ns) {
  std::int64_t end = data.run.end_wall_ns.value_or(origin_ns);
  for (const DeviceSeries& d : data.devices) {
    if (!d.wall_ns.empty()) end = std::max(end, d.wall_ns.back());
  }
  return std::max(1.0, seconds_between(origin_ns, end));
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
  for (double v : values) r.add(v);
  return r;
}

BucketGrid pixel_columns(const Frame& frame) {
  return {frame.x.lo, frame.x.hi, static_cast<std::size_t>(std::max(1.0, std::ceil(frame.area.w)))};
}

std::vector<LinePoint> LineBuilder::build(std::span<const double> t, std::span<const double> v,
                                          const BucketGrid& grid) {
  const double usual = median_valid_interval(t, v);
  keep_valid_marking_gaps(t, v, kGapIntervals * usual, t_, v_);
  return min_max_per_bucket(t_, v_, grid);
}

}  // namespace gpuwatch::plot
