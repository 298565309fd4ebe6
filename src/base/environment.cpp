#include "base/environment.h"

#include <unistd.h>

#include <cstdlib>

#include "base/system_paths.h"

namespace gpuwatch {

SystemPaths SystemPaths::from_environment() {
  SystemPaths paths;
  if (const char* v = std::getenv("GPUWATCH_SYSFS_ROOT"); v && *v) paths.sysfs_root = v;
  if (const char* v = std::getenv("GPUWATCH_PROCFS_ROOT"); v && *v) paths.procfs_root = v;
  if (const char* v = std::getenv("GPUWATCH_NVML_LIBRARY"); v && *v) paths.nvml_library = v;
  if (const char* v = std::getenv("GPUWATCH_SHARE_ROOT"); v && *v) paths.share_root = v;
  return paths;
}

std::optional<std::string> environment_value(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::vector<std::string> environment_entries() {
  std::vector<std::string> entries;
  for (char** e = environ; *e != nullptr; ++e) entries.emplace_back(*e);
  return entries;
}

}  // namespace gpuwatch
