// Which of a run's recorded GPUs are the job's: the advisor, `status`, the
// report's cross-GPU verdicts and `--on-underuse kill` judge only those, so
// that other jobs' GPUs on a shared node never stop or blame this one.
//
// The recorder decides and stores its decision as an event of kind
// "job_gpus" (job_gpus_message()), again whenever it
// changes: the latest one holds. Runs recorded before, and imported ones,
// have none: their source is Unknown.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

enum class JobGpuSource {
  Unknown,             // not recorded: the advisor falls back on activity
  VisibleDevices,      // a visible-devices variable named them (CUDA_, HIP_, ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK)
  ProcessTree,         // the command's processes were seen on them
  CommandNotSeen,      // all recorded GPUs: the command has no process on any (yet)
};
// "unknown", "cuda_visible_devices", "process_tree", "command_not_seen".
// VisibleDevices keeps the name it had when CUDA's was the only variable
// read: stored runs and report JSON schema 1 carry it.
std::string_view to_string(JobGpuSource s);

struct JobGpus {
  JobGpuSource source = JobGpuSource::Unknown;
  std::vector<int> gpus;  // ascending; for CommandNotSeen every recorded GPU
  // VisibleDevices: the variables that decided, e.g. "CUDA_VISIBLE_DEVICES"
  // (empty in runs recorded before AMD and Intel GPUs were read: CUDA's).
  std::vector<std::string> variables{};

  [[nodiscard]] bool known() const { return source != JobGpuSource::Unknown; }
  [[nodiscard]] bool contains(int index) const;
  friend bool operator==(const JobGpus&, const JobGpus&) = default;
};

inline constexpr std::string_view kJobGpusEventKind = "job_gpus";

// "source=<source> gpus=<i,j,...>[ variables=<NAME,NAME>]".
std::string job_gpus_message(const JobGpus& job);
// Parses a message written by job_gpus_message(); nullopt if it is not one
// (the store may hold anything an import brought in).
std::optional<JobGpus> parse_job_gpus_message(std::string_view message);
// The latest valid "job_gpus" event's decision; Unknown without one.
JobGpus job_gpus_from_events(std::span<const Event> events);

// The recorder's running decision when CUDA_VISIBLE_DEVICES did not settle
// it: every recorded GPU until the command's process tree shows on one,
// then the GPUs it was seen on (never fewer: a GPU the job left is still
// one it used).
class JobGpuTracker {
 public:
  JobGpuTracker(JobGpus initial, std::vector<int> recorded);
  // Processes the driver lists on the recorded GPUs (in_tree set by the
  // sampler). Returns whether the decision changed.
  bool observe(std::span<const GpuProcess> processes);
  [[nodiscard]] const JobGpus& current() const { return current_; }

 private:
  JobGpus current_;
  std::vector<int> recorded_;
};

}  // namespace gpuwatch
