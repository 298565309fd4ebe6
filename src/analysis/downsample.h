// Reducing a long series to what a picture can show. A plot of 10 million
// samples has at most a few thousand pixel columns; drawing every sample would
// cost seconds and show nothing more. Both reductions keep peaks (a single
// spike survives), keep the first and last sample, and never bridge a gap.
//
// Series are (time, value) pairs in time order; a NaN value is a gap. The
// output is points in time order, where a point with a NaN value marks a gap:
// the line breaks there. A gap marker only ever stands between two points.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace gpuwatch {

struct LinePoint {
  double t = 0;
  double v = 0;  // NaN: gap marker
};

// Equal time buckets over [t_begin, t_end]: the pixel columns of a plot.
// Samples outside the span fall into the first or last bucket.
struct BucketGrid {
  double t_begin = 0;
  double t_end = 0;
  std::size_t count = 0;
};

// Min/max per bucket (the classic plotting reduction): for each bucket, its
// lowest and its highest sample, in time order, plus the series' first and
// last sample. At most 2 * count + 2 points besides gap markers. A gap
// marker appears between two output points whenever a NaN sample lies
// between them, even a gap narrower than a bucket.
std::vector<LinePoint> min_max_per_bucket(std::span<const double> t, std::span<const double> v,
                                          const BucketGrid& grid);

// Largest-triangle-three-buckets (Steinarsson 2013): keeps the first and last
// sample and, from each of max_points - 2 equal-count buckets between them,
// the sample that spans the largest triangle with the point kept before it and
// the mean of the next bucket. At most max_points points besides gap markers
// (max_points below 3 counts as 3); a series that already fits is returned
// whole. Gaps are marked as for min_max_per_bucket.
std::vector<LinePoint> lttb(std::span<const double> t, std::span<const double> v, std::size_t max_points);

// A metric read less often than every tick (temperature, clocks) is NaN on the
// ticks between its reads: those NaNs are not gaps. Median time between
// consecutive valid samples (estimated from at most a few thousand of them);
// 0 when fewer than two samples have a value.
double median_valid_interval(std::span<const double> t, std::span<const double> v);

// The valid samples only, with one NaN sample inserted wherever two
// consecutive valid samples are more than max_gap apart (a stopped sampler,
// a lost device): the series min_max_per_bucket and lttb should draw.
// Appends to out_t/out_v after clearing them (buffers are reused).
void keep_valid_marking_gaps(std::span<const double> t, std::span<const double> v, double max_gap,
                             std::vector<double>& out_t, std::vector<double>& out_v);

}  // namespace gpuwatch
