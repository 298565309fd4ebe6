// Whose a GPU process is: the Slurm job, the container, the Kubernetes pod or
// the systemd unit it runs in, as its cgroup path and its environment tell
// (backends/procfs/cgroup_parse.h reads them). Plain text fields, empty where
// unknown, so that every output can show, label and store them alike.
#pragma once

#include <string>
#include <string_view>

namespace gpuwatch {

struct ProcessAttribution {
  // Slurm: the job id ("1234") and step ("0", "batch", "extern",
  // "interactive") from the cgroup path; the array job and task ids from the
  // process's SLURM_ARRAY_JOB_ID / SLURM_ARRAY_TASK_ID where readable.
  std::string job;
  std::string step;
  std::string array_job;
  std::string array_task;
  // The container's full id (hex) and its runtime ("docker", "containerd",
  // "crio", "podman"; empty where the path names the id only, as under
  // Kubernetes' cgroupfs driver).
  std::string container;
  std::string runtime;
  // Kubernetes: the pod's UID (with dashes, as `kubectl get pod -o
  // jsonpath={.metadata.uid}` prints it) and its QoS class: "Guaranteed",
  // "Burstable" or "BestEffort".
  std::string pod_uid;
  std::string qos;
  // The innermost systemd unit ("foo.scope", "x.service"), only where none
  // of the above is known: a session or a service, not a scheduler's job.
  std::string unit;

  [[nodiscard]] bool empty() const {
    return job.empty() && container.empty() && pod_uid.empty() && unit.empty();
  }
  bool operator==(const ProcessAttribution&) const = default;
};

// Docker's short form: the first 12 characters of the id.
inline constexpr std::size_t kShortContainerIdChars = 12;
std::string_view short_container_id(std::string_view id);

// The job as Slurm's tools write it: "1234", "1234.0", "1234.batch"; an array
// task as "1233_7" (squeue's %i), its step after a dot.
std::string slurm_job_text(const ProcessAttribution& a);
// The same without the step: "1234", "1233_7"; the job a step belongs to,
// which top's grouping and the per-job recording rules sum over.
std::string slurm_job_id_text(const ProcessAttribution& a);

// One short word for a table cell, most specific owner first: the Slurm job
// ("1234.0"), else the container's short id (a pod's container too), else
// "pod:" and the pod UID's first 8 characters, else the unit; "" if none.
std::string attribution_text(const ProcessAttribution& a);

}  // namespace gpuwatch
