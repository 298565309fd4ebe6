// From a GPU's columns to what a panel draws: elapsed seconds, value ranges,
// and lines reduced in two steps, first to a few points per bucket of the
// run's span while the full columns are in memory, then to about two points
// per pixel column of the panel.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "analysis/downsample.h"
#include "core/run.h"
#include "render/plot/frame.h"

namespace gpuwatch::plot {

// to - from in seconds, computed in doubles: no overflow whatever a file held.
double seconds_between(std::int64_t from_ns, std::int64_t to_ns);
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

// A line kept at a resolution finer than any picture's: seconds and values in
// time order, a NaN value where the line breaks.
struct Line {
  std::vector<double> t_s;
  std::vector<double> v;
};

// Builds lines, reusing its buffers between series.
class LineBuilder {
 public:
  // From a full-resolution series: values missing only because a slow
  // metric was not read on that tick are dropped, stretches without a value
  // longer than three usual intervals become gaps, and each bucket of `grid`
  // keeps its min and max.
  Line reduce(std::span<const double> t, std::span<const double> v, const BucketGrid& grid);
  // The points a frame draws of a line, its times moved by shift_s: each
  // pixel column keeps its min and max, gaps stay gaps.
  std::vector<LinePoint> points(const Line& line, double shift_s, const BucketGrid& grid);

 private:
  std::vector<double> t_;
  std::vector<double> v_;
};

}  // namespace gpuwatch::plot
