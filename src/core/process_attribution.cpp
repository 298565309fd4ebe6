#include "core/process_attribution.h"

namespace gpuwatch {

std::string_view short_container_id(std::string_view id) { return id.substr(0, kShortContainerIdChars); }

std::string slurm_job_id_text(const ProcessAttribution& a) {
  // An array task's own job id (a.job) is what scancel takes too, but
  // "1233_7" is how squeue and sacct name the task to its user.
  return !a.array_job.empty() && !a.array_task.empty() ? a.array_job + "_" + a.array_task : a.job;
}

std::string slurm_job_text(const ProcessAttribution& a) {
  std::string out = slurm_job_id_text(a);
  if (!out.empty() && !a.step.empty()) out += "." + a.step;
  return out;
}

std::string attribution_text(const ProcessAttribution& a) {
  if (std::string job = slurm_job_text(a); !job.empty()) return job;
  if (!a.container.empty()) return std::string(short_container_id(a.container));
  if (!a.pod_uid.empty()) return "pod:" + a.pod_uid.substr(0, 8);
  return a.unit;
}

}  // namespace gpuwatch
