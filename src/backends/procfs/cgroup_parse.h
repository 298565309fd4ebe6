// Who owns a process, from the text of its /proc/PID/cgroup (cgroup v1
// lines "ID:controllers:path", v2's one "0::path") and its environment: the
// Slurm job and step, the container, the Kubernetes pod and its QoS class,
// else the systemd unit. Pure: the caller reads the files (under its procfs
// root) and passes their text. Fuzzed (fuzz/cgroup_fuzz.cpp); never throws.
//
// The layouts, as their projects document them:
// - Slurm's cgroup plugins (slurm.schedmd.com/cgroup_v2.html, cgroups.html):
//   v1 "/slurm/uid_1000/job_1234/step_0/task_0" (or "/slurm_<node>/..." with
//   several slurmd), v2 "/system.slice/slurmstepd.scope/job_1234/step_0/
//   user/task_0"; steps "batch", "extern", "interactive" or a number.
// - Docker (docs.docker.com, "Runtime metrics"): "/docker/<64 hex>" with the
//   cgroupfs driver, "/system.slice/docker-<64 hex>.scope" with systemd's.
// - containerd "cri-containerd-<id>.scope", CRI-O "crio-<id>.scope" (its
//   "crio-conmon-<id>.scope" is the monitor, not the container), Podman
//   "libpod-<id>.scope".
// - Kubernetes (kubernetes.io, "Configuring a cgroup driver", "Pod QoS
//   classes"): "kubepods.slice/kubepods-burstable.slice/
//   kubepods-burstable-pod<uid, '-' as '_'>.slice/<container scope>" with the
//   systemd driver, "/kubepods/burstable/pod<uid>/<container id>" with
//   cgroupfs; a Guaranteed pod sits right under kubepods.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/process_attribution.h"

namespace gpuwatch {

// The owner named by the cgroup paths. v2's unified line first, then the v1
// lines in order; a field the first path leaves empty may come from a later
// one. The unit is kept only where no job, container or pod was found.
ProcessAttribution parse_cgroup(std::string_view cgroup_text);

// /proc/PID/environ (NUL-separated NAME=value): the array ids
// (SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID), and the job and step
// (SLURM_JOB_ID, SLURM_STEP_ID) where the cgroup named none (a cluster
// without Slurm's cgroup plugin). Values that are not numbers are ignored;
// an environment whose SLURM_JOB_ID is another job than the cgroup's (one
// inherited by a process started from another job's shell) adds nothing.
void apply_slurm_environment(std::string_view environ_text, ProcessAttribution& into);

// The "NSpid:" line of /proc/PID/status: the process's pid in each PID
// namespace it is in, outermost (the procfs reader's) first; empty where the
// kernel has no such line (before 4.1) or it does not parse.
std::vector<std::uint32_t> parse_status_nspid(std::string_view status_text);

}  // namespace gpuwatch
