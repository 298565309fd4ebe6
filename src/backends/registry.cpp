// The one place that knows which backends exist. Adding a vendor means adding
// its factory to kBackends; nothing else in the program names a vendor.
#include <array>
#include <functional>

#include "backends/amdgpu/amdgpu_backend.h"
#include "backends/backend.h"
#include "backends/intel/intel_backend.h"
#include "backends/nvml/nvml_backend.h"

namespace gpuwatch {

namespace {

using Factory = std::unique_ptr<GpuBackend> (*)(const SystemPaths&, std::string& why_not);

// In this order: NVIDIA's GPUs take the first indices, AMD's follow, then Intel's.
constexpr std::array<Factory, 3> kBackends{
    &open_nvml_backend,
    &open_amdgpu_backend,
    &open_intel_backend,
};

}  // namespace

BackendSet open_backends(const SystemPaths& paths) {
  BackendSet set;
  for (Factory factory : kBackends) {
    std::string why_not;
    std::unique_ptr<GpuBackend> backend = factory(paths, why_not);
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

}  // namespace gpuwatch
