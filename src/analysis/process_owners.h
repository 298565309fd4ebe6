// GPU processes grouped by whose they are: one group per Slurm job,
// container, pod, systemd unit or user, with what its processes hold and use
// of the GPUs. `top`'s owner rows (the `o` key, `--group-by owner`) and its
// JSON's "owners" are this; docs/top.md, "Owners".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/process_attribution.h"

namespace gpuwatch {

// The most specific owner a process has, in the order of top's OWNER
// column: a Slurm job, else a container, else a pod, else a systemd unit;
// else the user it runs as; Unknown for a pid /proc does not show (gone,
// hidden, or of another PID namespace), whose user nobody can tell.
enum class OwnerKind { SlurmJob, Container, Pod, Unit, User, Unknown };
// "slurm_job", "container", "pod", "unit", "user", "unknown".
std::string_view to_string(OwnerKind kind);

struct Owner {
  OwnerKind kind = OwnerKind::Unknown;
  // The job without its step ("1234", an array task "1233_7": a job's batch
  // step and its srun steps are one job), the container's short id, the
  // pod's UID, the unit, the user name; empty for Unknown.
  std::string name;
  bool operator==(const Owner&) const = default;
};

// `user`: the process's user name as procfs gave it; empty when /proc does
// not show the process.
Owner owner_of(const ProcessAttribution& attribution, std::string_view user);

// One process on one GPU, as much of it as the grouping reads (a process on
// two GPUs is two of these, with the same pid).
struct ProcessUse {
  std::uint32_t pid = 0;
  int gpu = 0;
  std::optional<std::uint64_t> gpu_memory_bytes;  // absent where the driver hides it
  std::optional<double> gpu_percent;              // the process's share of the SMs, where given
  std::optional<double> cpu_percent;              // % of one core
  std::string user;
  ProcessAttribution attribution;
};

struct OwnerGroup {
  Owner owner;
  // A container's runtime and the Kubernetes pod (UID, QoS class) a
  // container or pod group runs in, as its first process says (a
  // container's processes share them); empty where unknown.
  std::string runtime;
  std::string pod_uid;
  std::string qos;
  std::vector<std::uint32_t> pids;  // distinct, ascending: the process count is its size
  std::vector<int> gpus;            // distinct, ascending
  std::vector<std::string> users;   // distinct, ascending; empty names left out
  // Sums over the group's rows; absent when no row has the value. GPU use
  // adds each GPU's share, so a job busy on four GPUs reads 400.
  std::optional<std::uint64_t> gpu_memory_bytes;
  std::optional<double> gpu_util_percent_sum;
  // Over its distinct pids: a process on two GPUs counts its CPU once.
  std::optional<double> cpu_percent_sum;
};

// One group per owner, in the order each owner's first process comes in
// `processes` (callers sort them as they show them).
std::vector<OwnerGroup> group_by_owner(std::span<const ProcessUse> processes);

}  // namespace gpuwatch
