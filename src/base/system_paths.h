// Where gpuwatch reads the system from: the roots of /sys, /proc and
// /usr/share and the NVML library. Plain values, filled by cli/ from the
// environment (base/environment.cpp) and passed down to every reader.
#pragma once

#include <filesystem>
#include <string>

namespace gpuwatch {

// Where to read the system from. Passed in, never global, so tests can point
// several backends at several fixture trees at once.
struct SystemPaths {
  std::filesystem::path sysfs_root = "/sys";
  std::filesystem::path procfs_root = "/proc";
  std::string nvml_library;  // empty: the system's libnvidia-ml.so.1
  // Where the PCI id lists that name AMD and Intel GPUs are
  // (libdrm/amdgpu.ids, misc/pci.ids, hwdata/pci.ids: backends/pci_names.h).
  std::filesystem::path share_root = "/usr/share";

  // Reads GPUWATCH_SYSFS_ROOT, GPUWATCH_PROCFS_ROOT, GPUWATCH_NVML_LIBRARY,
  // GPUWATCH_SHARE_ROOT (base/environment.cpp). For cli/, the one reader of
  // the environment: the layers below take a SystemPaths passed in.
  static SystemPaths from_environment();
};

}  // namespace gpuwatch
