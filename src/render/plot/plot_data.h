// A run reduced to what its pictures show. A plot of 35 hours of 8 GPUs at
// 10 Hz (10 million device-samples) reads each GPU once, only the metrics
// its kind needs, and keeps of it:
//
//   - lines as the min and max of each of a few thousand buckets over the
//     GPU's span, gaps marked, so that a picture of any width draws the same
//     envelope as from every sample;
//   - the numbers the picture prints or draws as bars (time-weighted means,
//     spreads, ranges), computed from every sample while they are in memory;
//   - for a histogram, the values with their weights (binned once the whole
//     run's range is known);
//   - for compare, the mean over the GPUs at each tick, summed GPU by GPU.
//
// A run in memory (an imported file, a test's run) goes the same way through
// RunDataColumns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/histogram.h"
#include "analysis/stats.h"
#include "render/plot/series.h"
#include "core/device_columns.h"

namespace gpuwatch::plot {

// What a kind of picture reads of each GPU.
struct PlotNeeds {
  std::vector<DeviceMetric> lines;    // over time, one line per GPU
  std::vector<DeviceMetric> moments;  // per GPU: time-weighted mean, std, min, max
  std::vector<DeviceMetric> means;    // the mean over the GPUs at each tick, as one line
  std::vector<DeviceMetric> ranges;   // the lowest and highest value only (reference lines)
  std::optional<DeviceMetric> histogram;  // per GPU: values and their weights
  std::size_t line_buckets = 4096;        // of each line, over its span
  // Every metric above, once: the columns to read.
  [[nodiscard]] std::vector<DeviceMetric> columns() const;
};

// One metric of one GPU. Each part is filled only when the needs ask for it;
// the range is filled for every column read.
struct MetricData {
  ValueRange range;  // of the finite values
  Line line;         // seconds since PlotRun::line_origin_ns
  std::optional<Moments> moments;
};

struct DeviceData {
  std::size_t samples = 0;
  std::int64_t first_wall_ns = 0;  // of its first and last sample, when it has any
  std::int64_t last_wall_ns = 0;
  std::vector<MetricData> metrics;  // by DeviceMetric
  WeightedValues histogram;         // of PlotNeeds::histogram
  [[nodiscard]] const MetricData& metric(DeviceMetric m) const { return metrics[static_cast<std::size_t>(m)]; }
};

struct PlotRun {
  RunData base;                     // run, events and devices' facts; no samples
  std::vector<DeviceData> devices;  // parallel to base.devices
  std::int64_t line_origin_ns = 0;  // where the lines' seconds count from
  std::vector<Line> means;          // by DeviceMetric, for PlotNeeds::means
  bool from_rollups = false;        // read from per-minute rollups (plot_rollups.h), not samples
  [[nodiscard]] bool has_samples() const;
  [[nodiscard]] const Line& mean(DeviceMetric m) const { return means[static_cast<std::size_t>(m)]; }
};

// Reads every GPU of base.devices from `columns`, `threads` GPUs at a time
// (each holding one GPU's columns at full resolution), and keeps what
// `needs` asks for. Throws what `columns` throws.
PlotRun reduce_run(RunData base, const DeviceColumns& columns, const PlotNeeds& needs, unsigned threads = 2);

// How long a value of `metric` stays current: three of its read periods
// (slow metrics every slow interval, stored with the run; costly ones every
// kCostlyPeriodSeconds; see core/metrics.h). Ends a value's part in the mean
// over GPUs; a stretch of minutes without a value this long breaks a line
// drawn from rollups.
std::int64_t max_age_ns(const RunInfo& run, DeviceMetric metric);

// Time zero of a run's pictures: its start by the wall clock (or its first
// sample when that came earlier or the start is unknown).
std::int64_t time_origin_ns(const PlotRun& run);
// Seconds from the origin to the run's end or last sample; at least 1.
double elapsed_end_s(const PlotRun& run, std::int64_t origin_ns);

}  // namespace gpuwatch::plot
