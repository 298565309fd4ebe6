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

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/drm_fdinfo/fdinfo_rounds.h"

namespace gpuwatch {

class IntelBackend final : public GpuBackend {
 public:
  // Finds the cards of vendor 0x8086 driven by i915 or xe under
  // paths.sysfs_root. Null when there is none; why_not then says which
  // Intel GPUs have another driver (vfio-pci, none), and is empty when the
  // machine has no Intel GPU at all.
  static std::unique_ptr<IntelBackend> open(const SystemPaths& paths, std::string& why_not);
  ~IntelBackend() override;

  [[nodiscard]] std::string name() const override { return "intel"; }
  [[nodiscard]] std::vector<DeviceInfo> devices() const override;
  ReadStatus read_fast(std::size_t local_index, DeviceValues& out) override;
  ReadStatus read_slow(std::size_t local_index, const SlowReadPlan& plan, DeviceValues& out,
                       std::vector<GpuProcess>& processes) override;

  // Defined in the .cpp; public only so that the helpers there can name it.
  struct Device;

 private:
  explicit IntelBackend(const SystemPaths& paths);
  std::vector<std::unique_ptr<Device>> devices_;
  std::filesystem::path procfs_root_;
  DrmScanPerRound drm_scans_;
};

// The registry's factory.
std::unique_ptr<GpuBackend> open_intel_backend(const SystemPaths& paths, std::string& why_not);

}  // namespace gpuwatch
