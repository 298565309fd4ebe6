#include "backends/drm_fdinfo/engine_classes.h"

#include <algorithm>
#include <utility>

namespace gpuwatch {
namespace {

// amdgpu_fdinfo.c's ring names; i915's engine class names
// (i915_drm_client.c); xe's class names (xe_drm_client.c).
constexpr std::array<std::pair<std::string_view, DeviceMetric>, 17> kClasses{{
    {"gfx", DeviceMetric::EngineGraphicsPercent},
    {"render", DeviceMetric::EngineGraphicsPercent},
    {"rcs", DeviceMetric::EngineGraphicsPercent},
    {"compute", DeviceMetric::EngineComputePercent},  // amdgpu and i915 alike
    {"ccs", DeviceMetric::EngineComputePercent},
    {"dma", DeviceMetric::EngineCopyPercent},  // amdgpu's SDMA
    {"copy", DeviceMetric::EngineCopyPercent},
    {"bcs", DeviceMetric::EngineCopyPercent},
    {"dec", DeviceMetric::EngineVideoPercent},
    {"enc", DeviceMetric::EngineVideoPercent},
    {"enc_1", DeviceMetric::EngineVideoPercent},
    {"jpeg", DeviceMetric::EngineVideoPercent},
    {"video", DeviceMetric::EngineVideoPercent},
    {"vcs", DeviceMetric::EngineVideoPercent},
    {"video-enhance", DeviceMetric::EngineVideoEnhancePercent},
    {"vecs", DeviceMetric::EngineVideoEnhancePercent},
    {"vpe", DeviceMetric::EngineVideoEnhancePercent},  // amdgpu's video processing engine
}};

}  // namespace

EngineUse card_engine_use(const DrmScan& scan, std::string_view pci_bus_id, std::string_view driver) {
  EngineUse use;
  for (const DrmClient& c : scan.clients) {
    if (c.info.driver != driver || c.info.pdev != pci_bus_id) continue;
    for (const DrmEngineUse& u : c.engine_use) use[u.name] += u.percent;
  }
  for (auto& [name, percent] : use) percent = std::min(100.0, percent);
  return use;
}

std::optional<DeviceMetric> engine_class_metric(std::string_view engine) {
  for (const auto& [name, metric] : kClasses) {
    if (name == engine) return metric;
  }
  return std::nullopt;
}

void set_engine_class_values(const EngineUse& use, DeviceValues& values) {
  for (const auto& [engine, percent] : use) {
    const std::optional<DeviceMetric> m = engine_class_metric(engine);
    if (!m) continue;
    values.set(*m, std::max(values.get(*m).value_or(0), percent));
  }
}

}  // namespace gpuwatch
