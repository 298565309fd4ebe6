// Intel GPUs through their kernel drivers' own files, i915 (integrated GPUs
// up to Meteor Lake, Arc Alchemist) and xe (Lunar Lake, Battlemage, and
// others): sysfs under /sys/class/drm/cardN, the hwmon directory of
// discrete cards, and DRM fdinfo for use and processes. No perf PMU (it
// needs CAP_PERFMON), no ioctl. Facts and sources: ../shared/VENDORS.md
// section 1.3; the kernel's sysfs-driver-intel-{i915,xe}-hwmon ABI docs.
//
// As for amdgpu (amdgpu_backend.h): every file is probed once at open, so
// what a GPU lacks is absent, never 0; a runtime-suspended GPU is not read
// until it wakes; a GPU whose sysfs directory goes is reported Lost.
//
// Utilization and VRAM used come from the fdinfo scan of the slow round:
// measured once per slow round, sent with every fast read until the next
// one, and covering only the processes that this user can read (all of
// them under root).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/sysfs_card_backend.h"

namespace gpuwatch {

class IntelBackend final : public SysfsCardBackend {
 public:
  // Finds the cards of vendor 0x8086 driven by i915 or xe under
  // paths.sysfs_root. Null when there is none; why_not then says which
  // Intel GPUs have another driver (vfio-pci, none), and is empty when the
  // machine has no Intel GPU at all. drm_scans: the machine's one fdinfo
  // scanner (null: one of its own).
  static std::unique_ptr<IntelBackend> open(const SystemPaths& paths, std::string& why_not,
                                            std::shared_ptr<DrmScanPerRound> drm_scans = nullptr);

  [[nodiscard]] std::string name() const override { return "intel"; }

  // Defined in the .cpp; public only so that the helpers there can name it.
  struct Device;

 private:
  IntelBackend(const SystemPaths& paths, std::shared_ptr<DrmScanPerRound> drm_scans);
  bool read_fast_values(SysfsCard& card, DeviceValues& values) override;
  bool read_slow_values(SysfsCard& card, const SlowReadPlan& plan, DeviceValues& values) override;
  void read_scan(SysfsCard& card, const DrmScan& scan, DeviceValues& values,
                 std::vector<GpuProcess>* processes) override;
  // Utilization and VRAM used come from the scan.
  [[nodiscard]] bool measures_from_scan() const override { return true; }
};

// The registry's factory.
std::unique_ptr<GpuBackend> open_intel_backend(const SystemPaths& paths,
                                               std::shared_ptr<DrmScanPerRound> drm_scans, std::string& why_not);

}  // namespace gpuwatch
