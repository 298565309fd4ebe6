// One distributed job recorded on several nodes, each node into its own
// store (README "Many machines"), reported as one: `report --job ID`. A job
// is a group of runs that share RunInfo::job.id, so each run is reduced to
// report --group's row (analysis/run_group.h) plus its GPUs and step rate;
// the nodes (hosts) are then compared with the per-GPU load balance's CV and
// the seeds' bands (analysis/stats.h).
//
// The straggler node, and the rule that named it:
// - step rate: where two nodes or more logged steps (annotations) and their
//   rates differ by more than kStepRateSpreadPercent, the node with the
//   slowest steps/s. Synchronous data-parallel training steps in lockstep,
//   so equal rates say nothing about who holds the others back; then
// - utilization: the node whose GPUs were least busy, named only when the
//   nodes' CV is beyond the 'good' band (>= 10 %). NVML counts a kernel that
//   waits in a collective (NCCL) as busy, so nodes waiting for a slow one
//   look busy while the one that makes them wait (its input pipeline, its
//   host) shows idle time. A node slowed by its GPUs themselves (throttled,
//   a slower model) is as busy as the others and is not found this way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/run_group.h"
#include "analysis/run_report.h"
#include "analysis/stats.h"
#include "core/run.h"

namespace gpuwatch {

// Step rates closer than this (percent of the fastest) count as lockstep.
inline constexpr double kStepRateSpreadPercent = 5;

struct JobGpu {
  int index = 0;
  std::string name;
  std::optional<double> util_mean;       // percent, time-weighted
  std::optional<double> mem_used_peak;   // bytes
};

// One run of the job: one node's or one rank's recording.
struct JobRun {
  RunInfo run;
  GroupValues values;  // report --group's columns: duration, utilization, memory, power, energy
  std::vector<JobGpu> gpus;
  std::optional<double> steps_per_s;  // from the run's step annotations
};

struct JobNode {
  std::string host;
  std::vector<std::size_t> runs;          // indices into JobReport::runs
  std::size_t gpus = 0;
  std::optional<double> util_mean;        // its runs' utilization, weighted by their durations
  std::optional<double> power_watts;      // sum of its runs' mean power
  std::optional<double> energy_joules;    // sum of its runs' energy
  std::optional<double> steps_per_s;      // its slowest run's
};

enum class StragglerRule { StepRate, Utilization };
std::string_view to_string(StragglerRule rule);

struct Straggler {
  std::size_t node = 0;  // index into JobReport::nodes
  StragglerRule rule = StragglerRule::Utilization;
  double value = 0;        // its steps/s or utilization percent
  double others_mean = 0;  // the same over the other nodes
};

struct JobReport {
  std::string job_id;
  std::vector<JobRun> runs;    // by host, then rank, then start
  std::vector<JobNode> nodes;  // by host name
  std::size_t gpus = 0;
  std::optional<double> span_s;         // first start to last end
  std::optional<double> energy_joules;  // all runs
  // CV of the nodes' mean utilization: two nodes or more with a value.
  std::optional<Balance> node_balance;
  std::optional<Straggler> straggler;
  // Which rule named the straggler, or why none was named, in a sentence.
  std::string straggler_reason;
};

// The run reduced to its row (the caller may load, reduce and drop runs
// one at a time).
JobRun job_run(const RunData& data);
// Steps per second between the run's first and last step annotations;
// nullopt with fewer than two, or no time between them.
std::optional<double> step_rate(const std::vector<Event>& events);
JobReport build_job_report(std::string job_id, std::vector<JobRun> runs);

}  // namespace gpuwatch
