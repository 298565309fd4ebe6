// From a run's columns to what a panel draws: elapsed seconds, value ranges,
// and lines reduced to about two points per pixel column.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "analysis/downsample.h"
#include "render/plot/frame.h"
#include "store/store.h"

namespace gpuwatch::plot {

// Time zero of a run's pictures: its start by the wall clock (or its first
// sample when that came earlier or the start is unknown).
std::int64_t time_origin_ns(const RunData& data);
// to - from in seconds, computed in doubles: no overflow whatever a file held.
double seconds_between(std::int64_t from_ns, std::int64_t to_ns);
// Seconds from the origin to the run's end or last sample; at least 1.
double elapsed_end_s(const RunData& data, std::int64_t origin_ns);
// Seconds since origin_ns for each time; reuses `out`.
void elapsed_seconds(std::span<const std::int64_t> wall_ns, std::int64_t origin_ns, std::vector<double>& out);

// A device's column for the metric; empty when it has none (or a column that
// does not match the time column: a malformed run is drawn without it).
std::span<const double> metric_column(const DeviceSeries& series, DeviceMetric metric);

struct ValueRange {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  [[nodiscard]] bool empty() const { return lo > hi; }
  void add(double v);
  void add(const ValueRange& other);
};
// Of the finite values.
ValueRange finite_range(std::span<const double> values);

// One bucket per pixel column of the frame's plot area.
BucketGrid pixel_columns(const Frame& frame);

// Builds the points to draw for one series, reusing its buffers between
// series: values missing only because a slow metric was not read on that
// tick are dropped, stretches without a value longer than three usual
// intervals become gaps, and each pixel column keeps its min and max.
class LineBuilder {
 public:
  std::vector<LinePoint> build(std::span<const double> t, std::span<const double> v, const BucketGrid& grid);

 private:
  std::vector<double> t_;
  std::vector<double> v_;
};

}  // namespace gpuwatch::plot
