// The /proc/PID/cgroup and environ parsers on any bytes: they must return,
// never crash, and what they return must keep the attribution's rules.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "backends/procfs/cgroup_parse.h"

namespace {

bool hex(std::string_view s) {
  for (const char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuwatch::ProcessAttribution a = gpuwatch::parse_cgroup(text);
  if (!a.container.empty() && (a.container.size() < 12 || a.container.size() > 64 || !hex(a.container))) {
    __builtin_trap();
  }
  if (gpuwatch::short_container_id(a.container).size() > 12) __builtin_trap();
  // A QoS class belongs to a pod, and every pod has one.
  if (a.qos.empty() != a.pod_uid.empty()) __builtin_trap();
  if (!a.qos.empty() && a.qos != "Guaranteed" && a.qos != "Burstable" && a.qos != "BestEffort") __builtin_trap();
  if (!a.unit.empty() && (!a.job.empty() || !a.container.empty() || !a.pod_uid.empty())) __builtin_trap();
  if (a.step.size() > 32 || a.job.size() > 20 || a.pod_uid.size() > 64) __builtin_trap();
  // The same bytes as an environment.
  gpuwatch::apply_slurm_environment(text, a);
  if (a.array_job.empty() != a.array_task.empty()) __builtin_trap();
  if (!a.array_job.empty() && a.job.empty()) __builtin_trap();
  (void)gpuwatch::slurm_job_text(a);
  (void)gpuwatch::attribution_text(a);
  if (gpuwatch::parse_status_nspid(text).size() > size) __builtin_trap();
  return 0;
}
