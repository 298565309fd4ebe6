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
// fdinfo: those processes come from the KFD's own files (amdgpu_kfd.h),
// with their VRAM and no engine use.
//
// device/gpu_metrics, the driver's binary snapshot of the SMU's sensors
// (amdgpu_gpu_metrics.h), is read on slow rounds for what no file gives:
// throttle reasons, the energy counter, a hotspot temperature where hwmon
// has none.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "backends/sysfs_card_backend.h"

namespace gpuwatch {

class AmdgpuBackend final : public SysfsCardBackend {
 public:
  // Finds the amdgpu cards under paths.sysfs_root, reads their static facts
  // and probes every metric. Returns null when there is none; why_not is
  // then empty when the machine has no AMD GPU at all (nothing to explain on
  // an NVIDIA machine) and says why otherwise. drm_scans: the machine's one
  // fdinfo scanner (null: one of its own).
  static std::unique_ptr<AmdgpuBackend> open(const SystemPaths& paths, std::string& why_not,
                                             std::shared_ptr<DrmScanPerRound> drm_scans = nullptr);

  [[nodiscard]] std::string name() const override { return "amdgpu"; }

  // Defined in the .cpp; public only so that the helpers there can name it.
  struct Device;

 private:
  AmdgpuBackend(const SystemPaths& paths, std::shared_ptr<DrmScanPerRound> drm_scans);
  bool read_fast_values(SysfsCard& card, DeviceValues& values) override;
  bool read_slow_values(SysfsCard& card, const SlowReadPlan& plan, DeviceValues& values) override;
  void read_scan(SysfsCard& card, const DrmScan& scan, DeviceValues& values,
                 std::vector<GpuProcess>* processes) override;
  [[nodiscard]] bool measures_from_scan() const override { return false; }

  std::filesystem::path sysfs_root_;  // for the KFD's per-process files
};

// The registry's factory.
std::unique_ptr<GpuBackend> open_amdgpu_backend(const SystemPaths& paths,
                                                std::shared_ptr<DrmScanPerRound> drm_scans, std::string& why_not);

}  // namespace gpuwatch
