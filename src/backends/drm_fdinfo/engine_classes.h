// The catalogue's engine-class metrics (DeviceMetric::Engine*) from the
// drivers' own engine names in DRM fdinfo, so that an amdgpu, i915 and xe
// card read alike: i915 `render`, xe `rcs` and amdgpu `gfx` are all the
// graphics class (VENDORS.md section 1.1 lists each driver's engines).
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "backends/drm_fdinfo/fdinfo_scan.h"
#include "core/metrics.h"
#include "core/sample.h"

namespace gpuwatch {

inline constexpr std::array<DeviceMetric, 5> kEngineClassMetrics{
    DeviceMetric::EngineGraphicsPercent, DeviceMetric::EngineComputePercent, DeviceMetric::EngineCopyPercent,
    DeviceMetric::EngineVideoPercent, DeviceMetric::EngineVideoEnhancePercent};

// Per engine name, as the driver prints it: its use in percent of the engine
// (already divided by its capacity by the scanner).
using EngineUse = std::map<std::string, double, std::less<>>;

// The engines of one card's clients (those of `driver` whose drm-pdev is
// pci_bus_id): each engine's use summed over the clients and capped at 100,
// since two clients can only share the engine's time. An engine that no
// client has measured over two scans is absent.
EngineUse card_engine_use(const DrmScan& scan, std::string_view pci_bus_id, std::string_view driver);

// The class of a driver's engine name; nullopt for one outside the five
// (a name a newer kernel adds is left out rather than guessed).
std::optional<DeviceMetric> engine_class_metric(std::string_view engine);

// Sets each class's metric to the busiest of its engines in `use`: amdgpu's
// dec, enc and jpeg are separate engines of one video block, and the class
// is as busy as its busiest, as a card is as busy as its busiest class.
void set_engine_class_values(const EngineUse& use, DeviceValues& values);

}  // namespace gpuwatch
