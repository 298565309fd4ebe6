// AMD GPUs through the amdgpu kernel driver's own files: sysfs under
// /sys/class/drm/cardN/device and its hwmon directory. No ROCm, no libdrm, no
// ioctl: what any user can read, as amdgpu_top and nvtop read it (facts and
// sources: ../shared/VENDORS.md section 1.2; the kernel's amdgpu_pm.c docs).
//
// Every metric is probed once when the backend opens (the file exists and
// parses), so a metric the ASIC lacks (no fan on an MI300X, no edge sensor)
// is absent, never 0, and costs nothing per tick. A GPU that the PCI core has
// runtime-suspended is not woken: its reads return no values until it wakes
// (reading a sensor file would power it up). A GPU whose sysfs directory has
// gone (unplugged, driver unbound) is reported Lost.
//
// Processes: from DRM fdinfo (/proc/PID/fdinfo/N of the fds that point into
// /dev/dri; VENDORS.md section 1.1), read by the drm_fdinfo scanner that the
// Intel backends will share. One /proc scan serves every card of a slow
// round. Each process's VRAM (drm-resident-vram or drm-memory-vram) and its
// gfx/compute engine use since the previous round. Without root only the
// caller's own processes can be read. ROCm work through /dev/kfd is not in
// fdinfo and is not listed (amdgpu_processes.h).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/drm_fdinfo/fdinfo_rounds.h"

namespace gpuwatch {

class AmdgpuBackend final : public GpuBackend {
 public:
  // Finds the amdgpu cards under paths.sysfs_root, reads their static facts
  // and probes every metric. Returns null when there is none; why_not is
  // then empty when the machine has no AMD GPU at all (nothing to explain on
  // an NVIDIA machine) and says why otherwise.
  static std::unique_ptr<AmdgpuBackend> open(const SystemPaths& paths, std::string& why_not);
  ~AmdgpuBackend() override;

  [[nodiscard]] std::string name() const override { return "amdgpu"; }
  [[nodiscard]] std::vector<DeviceInfo> devices() const override;
  ReadStatus read_fast(std::size_t local_index, DeviceValues& out) override;
  ReadStatus read_slow(std::size_t local_index, const SlowReadPlan& plan, DeviceValues& out,
                       std::vector<GpuProcess>& processes) override;

  // Defined in the .cpp; public only so that the helpers there can name it.
  struct Device;

 private:
  explicit AmdgpuBackend(const SystemPaths& paths);
  std::vector<std::unique_ptr<Device>> devices_;
  std::filesystem::path procfs_root_;
  DrmScanPerRound drm_scans_;
};

// The registry's factory.
std::unique_ptr<GpuBackend> open_amdgpu_backend(const SystemPaths& paths, std::string& why_not);

}  // namespace gpuwatch
