// One number per moment for a whole run: the per-GPU columns of a run folded
// into the series that comparisons and group summaries work on, on a time
// axis of seconds since the run started.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/run.h"

namespace gpuwatch {

// What `compare` and the group summary compare, each folded across GPUs in
// one documented way (docs/compare.md).
enum class RunMetric : std::uint8_t {
  GpuUtilPercent,   // mean over GPUs
  MemUsedBytes,     // sum over GPUs
  MemUsedPercent,   // sum of used / sum of total, over GPUs
  PowerWatts,       // sum over GPUs
  TempGpuCelsius,   // max over GPUs (the hottest decides throttling)
  TempJunctionCelsius,  // max over GPUs; only runs of cards with the sensor (AMD)
  SmClockMhz,       // mean over GPUs
  HostCpuPercent,   // the host series: all cores, 0..100
  TreeRssBytes,     // the host series: resident memory of the recorded process tree
  kCount
};
inline constexpr std::size_t kRunMetricCount = static_cast<std::size_t>(RunMetric::kCount);

// Which way is better, where one way is: lower memory, higher utilization.
// Power and host CPU depend on the work done and are left neutral.
enum class Better : std::uint8_t { Higher, Lower, Neither };
std::string_view to_string(Better b);

// Name, unit, label and display format are the catalogue's, of the metric
// it folds (core/metrics.h), unless the fold makes it another number: the
// hottest GPU's temperature, memory as a share of the total.
struct RunMetricInfo {
  std::string_view name;         // stable identifier, JSON key
  std::string_view unit;         // stored unit, as in metrics.h
  std::string_view label;        // a table row's words before the display unit: "GPU memory"
  std::string_view aggregation;  // how GPUs are folded, for docs and output
  Better better;
  DisplayFormat display;
};

const RunMetricInfo& info(RunMetric m);

// The stored columns the metrics are folded from, each once, in the order
// of the metrics (memory as a share needs the total too): what a reader
// loads to compute them all and nothing else.
std::vector<DeviceMetric> run_metric_device_columns();
std::vector<HostMetric> run_metric_host_columns();

// Where a metric comes from and how GPUs fold into it, for readers that fold
// something other than samples (compare over per-minute rollups).
enum class RunMetricFold : std::uint8_t { Mean, Sum, Max, PercentOfTotal, Host };
struct RunMetricSource {
  RunMetricFold fold;
  std::size_t column;  // a DeviceMetric, or a HostMetric for Host
};
RunMetricSource source_of(RunMetric m);

// Times are nanoseconds since the run started; values have no NaN.
struct ElapsedSeries {
  std::vector<std::int64_t> elapsed_ns;
  std::vector<double> values;
  [[nodiscard]] bool empty() const { return values.empty(); }
};

// The monotonic time the run started: its recorded start, or its first
// sample when that is earlier or the start is unknown (imported files).
std::int64_t run_origin_mono_ns(const RunData& data);
// Seconds from the start to the last sample of any series (0: no samples).
double run_end_elapsed_s(const RunData& data);

// The metric over the whole run. Per-GPU values are folded at every time
// some GPU has a sample, each GPU contributing its latest value up to its
// last sample (the sampler stamps every GPU of a tick with the same time,
// so this is per tick; slow metrics are held until their next reading). A
// GPU lost mid-run stops contributing: memory summed over GPUs drops.
ElapsedSeries run_metric_series(const RunData& data, RunMetric metric);

// The samples with from_s <= elapsed <= to_s.
ElapsedSeries clip(const ElapsedSeries& series, double from_s, double to_s);

}  // namespace gpuwatch
