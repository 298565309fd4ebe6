// The one place that knows which backends exist. Adding a vendor means adding
// its factory to kBackends; nothing else in the program names a vendor.
#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "backends/amdgpu/amdgpu_backend.h"
#include "backends/backend.h"
#include "backends/drm_fdinfo/fdinfo_rounds.h"
#include "backends/intel/intel_backend.h"
#include "backends/nvml/nvml_backend.h"

namespace gpuwatch {

namespace {

// What a factory is handed: where to read, and the one fdinfo scanner that
// every DRM card's backend shares (one /proc scan per round for AMD and
// Intel GPUs together).
struct OpenContext {
  const SystemPaths& paths;
  std::shared_ptr<DrmScanPerRound> drm_scans;
};

using Factory = std::unique_ptr<GpuBackend> (*)(const OpenContext&, std::string& why_not);

// In this order: NVIDIA's GPUs take the first indices, AMD's follow, then Intel's.
constexpr std::array<Factory, 3> kBackends{
    [](const OpenContext& c, std::string& why_not) { return open_nvml_backend(c.paths, why_not); },
    [](const OpenContext& c, std::string& why_not) { return open_amdgpu_backend(c.paths, c.drm_scans, why_not); },
    [](const OpenContext& c, std::string& why_not) { return open_intel_backend(c.paths, c.drm_scans, why_not); },
};

}  // namespace

BackendSet open_backends(const SystemPaths& paths) {
  BackendSet set;
  const OpenContext context{paths, std::make_shared<DrmScanPerRound>(paths.procfs_root)};
  for (Factory factory : kBackends) {
    std::string why_not;
    std::unique_ptr<GpuBackend> backend = factory(context, why_not);
    if (!backend) {
      if (!why_not.empty()) set.notes.push_back(why_not);
      continue;
    }
    const int first = static_cast<int>(set.devices.size());
    for (DeviceInfo info : backend->devices()) {
      info.index += first;
      set.devices.push_back(std::move(info));
    }
    set.backends.push_back({std::move(backend), first});
  }
  return set;
}

std::size_t hidden_processes(const BackendSet& set) {
  std::size_t most = 0;
  for (const OpenBackend& b : set.backends) most = std::max(most, b.backend->hidden_processes());
  return most;
}

}  // namespace gpuwatch
