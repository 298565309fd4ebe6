// ROCm/HIP processes, which DRM fdinfo does not show: their queues and
// memory go through /dev/kfd, the amdkfd driver. amdkfd publishes, readable
// by anyone (VENDORS.md section 1.2, "KFD (ROCm) side channel"):
//   <sysfs>/class/kfd/kfd/topology/nodes/N/gpu_id      the node's gpu id (0: a CPU node)
//   <sysfs>/class/kfd/kfd/topology/nodes/N/properties  "name value" lines, among them
//       location_id = the PCI bus << 8 | device << 3 | function (pci_dev_id()),
//       domain      = the PCI domain (kfd_topology.c, kfd_topology_add_device)
//   <sysfs>/class/kfd/kfd/proc/<pid>/vram_<gpu_id>      that process's VRAM on that node, bytes
// A partitioned GPU (MI300 in CPX/DPX) has one node per partition, all on
// the one PCI device; kernels mark the partition in location_id (first in
// its low bits, later in bits 31-28), so a node is matched to a card by
// domain, bus and device number, not by function.
//
// What KFD does not tell: how long a process's queues ran. A ROCm process
// is listed with its VRAM and no gpu_percent (unknown, not 0).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "backends/amdgpu/amdgpu_parse.h"  // KfdNodePlace
#include "core/sample.h"

namespace gpuwatch::amdgpu {

// The gpu ids of the KFD nodes on the PCI device pci_bus_id
// ("0000:05:00.0"), from <sysfs_root>/class/kfd/kfd/topology. Empty when
// there is no KFD (no ROCm-capable driver loaded) or no node matches.
std::vector<std::uint32_t> kfd_gpu_ids_of(const std::filesystem::path& sysfs_root, std::string_view pci_bus_id);

struct KfdProcess {
  std::uint32_t pid = 0;
  std::uint64_t vram_bytes = 0;  // summed over the card's nodes
};

// The processes with a vram_<id> file for one of gpu_ids under
// <sysfs_root>/class/kfd/kfd/proc, sorted by pid. A file that does not
// read as a whole number is skipped; a process with none that reads is not
// listed.
std::vector<KfdProcess> kfd_processes(const std::filesystem::path& sysfs_root, std::span<const std::uint32_t> gpu_ids);

// Adds the KFD processes to the card's list from fdinfo (sorted by pid,
// one entry per pid), so that a process is there once:
// - only in KFD: kind "compute", its KFD VRAM, no gpu_percent, name from
//   procfs_root;
// - in both: the larger of the two VRAM figures (kernels whose KFD takes its
//   VM from the render node's DRM file count the same buffers in fdinfo: a
//   sum would count them twice; older ones miss them there), kind
//   "compute", and no gpu_percent: fdinfo's engine time leaves out the
//   work on KFD queues, so it would read idle while the process computes.
void merge_kfd_processes(std::vector<GpuProcess>& processes, std::span<const KfdProcess> kfd,
                         const std::filesystem::path& procfs_root);

}  // namespace gpuwatch::amdgpu
