#include "matrix/gpu_processes.h"

#include <algorithm>

namespace gpuwatch::matrix {

GpuPids GpuProcessView::pids_on(std::span<const int> gpus, std::map<std::uint32_t, std::string>* names) {
  GpuPids out;
  const SlowReadPlan plan{.costly = false, .processes = true};
  for (OpenBackend& b : set_.backends) {
    for (const DeviceInfo& d : b.backend->devices()) {
      const int global = b.first_global_index + d.index;
      if (std::find(gpus.begin(), gpus.end(), global) == gpus.end()) continue;
      DeviceValues values;
      std::vector<GpuProcess> processes;
      if (b.backend->read_slow(static_cast<std::size_t>(d.index), plan, values, processes) != ReadStatus::Ok) continue;
      auto& pids = out[global];
      for (const GpuProcess& p : processes) {
        pids.insert(p.pid);
        if (names != nullptr && !p.name.empty()) (*names)[p.pid] = p.name;
      }
    }
  }
  return out;
}

std::vector<GpuProcessAfter> new_gpu_processes(const GpuPids& before, const GpuPids& after,
                                               const std::map<std::uint32_t, std::string>& names) {
  std::vector<GpuProcessAfter> out;
  for (const auto& [gpu, pids] : after) {
    const auto was = before.find(gpu);
    for (const std::uint32_t pid : pids) {
      if (was != before.end() && was->second.count(pid) != 0) continue;
      const auto name = names.find(pid);
      out.push_back({gpu, pid, name == names.end() ? std::string() : name->second});
    }
  }
  return out;
}

}  // namespace gpuwatch::matrix
