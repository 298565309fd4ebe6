#include "analysis/process_owners.h"

#include <algorithm>

namespace gpuwatch {

std::string_view to_string(OwnerKind kind) {
  switch (kind) {
    case OwnerKind::SlurmJob: return "slurm_job";
    case OwnerKind::Container: return "container";
    case OwnerKind::Pod: return "pod";
    case OwnerKind::Unit: return "unit";
    case OwnerKind::User: return "user";
    case OwnerKind::Unknown: return "unknown";
  }
  return "unknown";
}

Owner owner_of(const ProcessAttribution& a, std::string_view user) {
  if (std::string job = slurm_job_id_text(a); !job.empty()) return {OwnerKind::SlurmJob, std::move(job)};
  if (!a.container.empty()) return {OwnerKind::Container, std::string(short_container_id(a.container))};
  if (!a.pod_uid.empty()) return {OwnerKind::Pod, a.pod_uid};
  if (!a.unit.empty()) return {OwnerKind::Unit, a.unit};
  if (!user.empty()) return {OwnerKind::User, std::string(user)};
  return {};
}

namespace {

template <typename T>
void insert_sorted_unique(std::vector<T>& into, const T& value) {
  const auto at = std::lower_bound(into.begin(), into.end(), value);
  if (at == into.end() || *at != value) into.insert(at, value);
}

template <typename T>
void add_to(std::optional<T>& sum, const std::optional<T>& value) {
  if (value) sum = sum.value_or(T{}) + *value;
}

void add_process(OwnerGroup& group, const ProcessUse& p) {
  const bool new_pid = !std::binary_search(group.pids.begin(), group.pids.end(), p.pid);
  insert_sorted_unique(group.pids, p.pid);
  insert_sorted_unique(group.gpus, p.gpu);
  if (!p.user.empty()) insert_sorted_unique(group.users, p.user);
  add_to(group.gpu_memory_bytes, p.gpu_memory_bytes);
  add_to(group.gpu_util_percent_sum, p.gpu_percent);
  if (new_pid) add_to(group.cpu_percent_sum, p.cpu_percent);
}

}  // namespace

std::vector<OwnerGroup> group_by_owner(std::span<const ProcessUse> processes) {
  std::vector<OwnerGroup> groups;
  for (const ProcessUse& p : processes) {
    Owner owner = owner_of(p.attribution, p.user);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const OwnerGroup& g) { return g.owner == owner; });
    if (it == groups.end()) {
      OwnerGroup& group = groups.emplace_back();
      group.owner = std::move(owner);
      if (group.owner.kind == OwnerKind::Container || group.owner.kind == OwnerKind::Pod) {
        group.runtime = p.attribution.runtime;
        group.pod_uid = p.attribution.pod_uid;
        group.qos = p.attribution.qos;
      }
      it = groups.end() - 1;
    }
    add_process(*it, p);
  }
  return groups;
}

}  // namespace gpuwatch
