#include "backends/amdgpu/amdgpu_processes.h"

#include <algorithm>
#include <map>
#include <optional>

#include "backends/procfs/host.h"
#include "backends/procfs/read_at.h"

namespace gpuwatch::amdgpu {
namespace {

// amdgpu's engine classes that run shaders (amdgpu_fdinfo.c). The others
// (dma, dec, enc, jpeg, vpe) are copy and video engines: busy there is not
// "the GPU" in the sense of NVML's per-process SM use that gpu_percent
// carries for NVIDIA.
constexpr std::string_view kGfx = "gfx";
constexpr std::string_view kCompute = "compute";

std::optional<double> busier(std::optional<double> a, std::optional<double> b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

std::uint64_t busy_ns(const DrmFdinfo& info, std::string_view engine) {
  const DrmEngine* e = info.engine(engine);
  return e != nullptr && e->busy_ns ? *e->busy_ns : 0;
}

}  // namespace

std::vector<GpuProcess> processes_on(const DrmScan& scan, std::string_view pci_bus_id,
                                     const std::filesystem::path& procfs_root) {
  struct PerPid {
    GpuProcess process;
    std::uint64_t gfx_ns = 0;
    std::uint64_t compute_ns = 0;
  };
  std::map<std::uint32_t, PerPid> by_pid;
  for (const DrmClient& c : scan.clients) {
    if (c.info.driver != "amdgpu" || c.info.pdev != pci_bus_id) continue;
    PerPid& p = by_pid[c.pid];
    p.process.pid = c.pid;
    if (const DrmMemoryRegion* vram = c.info.region("vram")) {
      if (const auto bytes = vram->resident_or_memory()) {
        p.process.used_memory_bytes = saturating_add(p.process.used_memory_bytes.value_or(0), *bytes);
      }
    }
    // One process's clients together: a browser or a compositor holds
    // several. Their use adds up, within the one GPU's 100 %.
    if (const auto use = busier(c.use_percent(kGfx), c.use_percent(kCompute))) {
      p.process.gpu_percent = std::min(100.0, p.process.gpu_percent.value_or(0) + *use);
    }
    p.gfx_ns = saturating_add(p.gfx_ns, busy_ns(c.info, kGfx));
    p.compute_ns = saturating_add(p.compute_ns, busy_ns(c.info, kCompute));
  }
  std::vector<GpuProcess> out;
  out.reserve(by_pid.size());
  for (auto& [pid, p] : by_pid) {
    // "compute" when its compute rings have run longer than its gfx ring
    // (OpenCL, Vulkan compute queues), "graphics" otherwise: a process that
    // only opened the device or only drew. ROCm compute would be "compute"
    // too, but it is not in fdinfo at all (see the header).
    p.process.kind = p.compute_ns > p.gfx_ns ? "compute" : "graphics";
    p.process.name = read_process_name(procfs_root, pid);
    out.push_back(std::move(p.process));
  }
  return out;
}

}  // namespace gpuwatch::amdgpu
