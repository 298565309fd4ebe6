#include <cstdlib>

#include "backends/backend.h"

namespace gpuwatch {

SystemPaths SystemPaths::from_environment() {
  SystemPaths paths;
  if (const char* v = std::getenv("GPUWATCH_SYSFS_ROOT"); v && *v) paths.sysfs_root = v;
  if (const char* v = std::getenv("GPUWATCH_PROCFS_ROOT"); v && *v) paths.procfs_root = v;
  if (const char* v = std::getenv("GPUWATCH_NVML_LIBRARY"); v && *v) paths.nvml_library = v;
  if (const char* v = std::getenv("GPUWATCH_SHARE_ROOT"); v && *v) paths.share_root = v;
  return paths;
}

}  // namespace gpuwatch
