// gpuwatch.metrics(): the recorder's latest per-GPU and aggregate values,
// under seed 001's names, answered on GPUWATCH_SOCKET (docs/python.md has
// the names and units, docs/annotations.md the request and the answer).
// Composing the answer is pure (live_metrics(), metrics_answer()); LiveMetrics
// keeps what it is composed from.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "analysis/job_gpus.h"
#include "live/live_window.h"
#include "sampler/sampler.h"

namespace gpuwatch {

inline constexpr int kMetricsSchemaVersion = 1;

using NamedValues = std::vector<std::pair<std::string, double>>;

// The GPUs the values cover: the job's, else every recorded one.
std::vector<int> metrics_gpus(const JobGpus& job, std::span<const int> recorded);

// The joules a GPU has used since the recording began, from its samples in
// time order: the energy counter's rise up to its latest reading, plus the
// power integrated (trapezoids) since that reading. The counter is read only
// every 30 s (a read costs milliseconds of CPU), so without the integral the
// value would stand still for 30 s and read 0 for a run's first 30 s. Power
// alone where the GPU has no counter; a counter that steps back (a driver
// reload) continues from where it was.
class EnergySince {
 public:
  void add(const DeviceSample& sample);
  [[nodiscard]] std::optional<double> joules() const;

 private:
  std::optional<double> first_counter_j_;
  double counter_j_ = 0;           // the latest reading, in the first one's terms
  double integrated_j_ = 0;        // since the latest reading (or the start)
  std::int64_t power_mono_ns_ = 0;  // of the latest power value
  std::optional<double> power_w_;
};

// The values of `gpus` (lost ones and those never read left out): per GPU
// gpu_{i}_memory (GiB used), gpu_{i}_utilization (%), gpu_{i}_power (W),
// gpu_{i}_energy (J since the recording began, `energy_j`), then
// gpu_total_memory, gpu_avg_utilization, gpu_load_balance_cv (% CV of the
// utilizations, with 2+ GPUs), gpu_total_power, gpu_total_energy.
NamedValues live_metrics(const LiveSnapshot& snapshot, std::span<const int> gpus,
                         const std::map<int, double>& energy_j);

// {"schema_version":1,"id":N,"gpus":[...],"metrics":{name: number, ...}}
std::string metrics_answer(std::int64_t id, std::span<const int> gpus, const NamedValues& values);

// On the sampling bus (cheap: the live window of the latest values, each
// GPU's energy so far, the job's GPUs); answer() is for the socket's thread.
class LiveMetrics final : public SampleSink {
 public:
  LiveMetrics(JobGpuTracker job, std::vector<int> recorded);

  void on_device_sample(const DeviceSample& sample) override;
  void on_host_sample(const HostSample& sample) override { window_.on_host_sample(sample); }
  void on_processes(const std::vector<GpuProcess>& processes, Timestamp seen) override;
  void on_device_lost(int device_index, Timestamp when) override { window_.on_device_lost(device_index, when); }
  void on_tick(Timestamp tick_time) override { window_.on_tick(tick_time); }

  // Thread-safe; never waits for more than a copy of the latest values.
  [[nodiscard]] std::string answer(std::int64_t request_id) const;

 private:
  LiveWindow window_{1};
  const std::vector<int> recorded_;
  mutable std::mutex mutex_;
  JobGpuTracker job_;                    // mutex_
  std::map<int, EnergySince> energy_;  // mutex_
};

}  // namespace gpuwatch
