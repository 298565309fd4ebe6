// What the DRM fdinfo scan (VENDORS.md section 1.1) says about one Intel
// card: its processes, and the card's engine use and local memory summed
// over the clients that this user can see. i915 gives busy time per engine
// class (render, copy, video, video-enhance, compute) and memory region
// local0 on discrete cards; xe gives busy cycles against the GPU timestamp
// (rcs, bcs, vcs, vecs, ccs) and region vram0. The scanner has already
// divided each class's use by its capacity.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "backends/drm_fdinfo/engine_classes.h"
#include "backends/drm_fdinfo/fdinfo_scan.h"
#include "core/sample.h"

namespace gpuwatch::intel {

struct CardUse {
  // Per engine class (the driver's names), the clients' percentages summed
  // and capped at 100.
  EngineUse engines;
  // The busiest of those classes. Absent until some client of the card has
  // use measured over two scans.
  std::optional<double> busiest_percent;
  // Local memory (vram*, local*) resident in the clients' buffers, else
  // their total. Counts only the processes this user can read; absent when
  // no client of the card holds any local memory region.
  std::optional<std::uint64_t> local_memory_bytes;
};

// The clients of `driver` ("i915" or "xe") whose drm-pdev is pci_bus_id.
CardUse card_use(const DrmScan& scan, std::string_view pci_bus_id, std::string_view driver);

// One entry per pid, its clients on the card summed: used_memory_bytes =
// local memory as above (absent on an iGPU, whose buffers are system
// memory); gpu_percent = its busiest engine class (absent on a client's
// first scan); kind "compute" when its compute class (compute, ccs) has run
// more than its render class (render, rcs); name from procfs_root/PID.
// Sorted by pid.
std::vector<GpuProcess> processes_on(const DrmScan& scan, std::string_view pci_bus_id, std::string_view driver,
                                     const std::filesystem::path& procfs_root);

}  // namespace gpuwatch::intel
