// Everything `report` says about one run, computed from its samples alone.
// Renderers (text, JSON, summary.txt) turn this into output; they compute nothing.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/advisor/advisory.h"
#include "analysis/energy.h"
#include "analysis/idle_gaps.h"
#include "analysis/job_gpus.h"
#include "analysis/memory_trend.h"
#include "analysis/pcie_link.h"
#include "analysis/pooled.h"
#include "analysis/segments.h"
#include "analysis/stats.h"
#include "analysis/throttle.h"
#include "analysis/training.h"
#include "core/device_columns.h"
#include "core/run.h"

namespace gpuwatch {

struct MetricSummary {
  DeviceMetric metric;
  Summary summary;
};

struct DeviceReport {
  DeviceInfo info;
  std::size_t samples = 0;
  std::vector<MetricSummary> metrics;  // every metric with values, in catalogue order
  EnergyEstimate energy;
  std::optional<IdleGapReport> idle_gaps;     // from utilization
  std::optional<ThrottleReport> throttle;     // from the clock-event reasons
  std::optional<MemoryTrend> memory;
  std::optional<PcieLinkReport> pcie_link;
  std::optional<std::int64_t> lost_at_wall_ns;

  [[nodiscard]] const Summary* find(DeviceMetric m) const;
};

struct HostMetricSummary {
  HostMetric metric;
  Summary summary;
};

struct BalanceReport {
  DeviceMetric metric;
  std::vector<double> per_gpu_mean;  // in device order
  std::vector<int> device_indices;
  Balance balance;
};

struct PooledMetric {
  DeviceMetric metric;
  Pooled pooled;
};

inline constexpr std::size_t kEventsKeptPerKind = 1000;

struct RunReport {
  RunInfo run;
  double wall_duration_s = 0;  // by the wall clock, start to end (or last sample)
  std::vector<DeviceReport> devices;
  std::vector<HostMetricSummary> host;
  // Which GPUs are the job's (from the run's job_gpus events). When known,
  // all_gpus and balance are over those alone: other jobs' GPUs say
  // nothing about this one.
  JobGpus job_gpus;
  std::vector<PooledMetric> all_gpus;  // every summarized metric, when >= 2 GPUs have it
  std::vector<BalanceReport> balance;  // every summarized metric, when >= 2 GPUs have it
  std::vector<SegmentStats> phases;    // from annotations; empty without them
  std::vector<SegmentStats> epochs;
  std::optional<TrainingSummary> training;  // from annotations
  std::optional<double> total_energy_joules;
  std::vector<ProcessRecord> processes;
  // All but the dense annotations (steps, logs), which `training` sums up;
  // of each kind the first and last kEventsKeptPerKind / 2, so 200,000 marks
  // or epochs do not crowd out a lost GPU. What was left out, per kind:
  std::vector<Event> events;
  std::map<std::string, std::size_t> events_omitted;
  // The run's verdict (analysis/run_verdict.h) when the caller judged it
  // (`report`, serve's report): "ok" or the highest severity, and the
  // advisories it rests on. build_report() leaves it unset.
  std::optional<std::string> verdict;
  std::vector<Advisory> advisories;

  [[nodiscard]] const Summary* find_host(HostMetric m) const;
};

// Everything in memory (a small run, an imported file).
RunReport build_report(const RunData& data);
// `base` holds the run, host series, processes and events, and the devices'
// facts without samples; samples come from `columns`.
RunReport build_report(const RunData& base, const DeviceColumns& columns);

}  // namespace gpuwatch
