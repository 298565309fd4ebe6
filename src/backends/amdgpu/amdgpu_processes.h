// The processes on one amdgpu card, from a DRM fdinfo scan (VENDORS.md
// section 1.1): what the amdgpu driver tells about each of its clients.
//
// Not seen: ROCm/HIP work, which goes through /dev/kfd and never shows in
// DRM fdinfo (a ROCm process appears only if it also opened a render node,
// and then only with what it did through that node). The backend adds
// those from the KFD's own files (amdgpu_kfd.h).
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "backends/drm_fdinfo/fdinfo_scan.h"
#include "core/sample.h"

namespace gpuwatch::amdgpu {

// One entry per pid with a client of the amdgpu device at pci_bus_id
// ("0000:03:00.0", matched against drm-pdev), its clients summed:
// used_memory_bytes = VRAM (drm-resident-vram, else drm-memory-vram);
// gpu_percent = the busier of gfx and compute since the previous scan
// (absent on a client's first scan); name from procfs_root/PID. Sorted by pid.
std::vector<GpuProcess> processes_on(const DrmScan& scan, std::string_view pci_bus_id,
                                     const std::filesystem::path& procfs_root);

}  // namespace gpuwatch::amdgpu
