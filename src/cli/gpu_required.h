// devices and sample have nothing to show without a GPU: they fail (exit 9,
// as nvidia-smi) with the backends' reasons instead of printing nothing.
#pragma once

#include <fmt/format.h>

#include "backends/backend.h"
#include "cli/errors.h"

namespace gpuwatch::cli {

inline void require_gpus(const BackendSet& set) {
  if (!set.devices.empty()) return;
  throw NoGpuError(set.notes.empty() ? std::string("no GPU found")
                                     : fmt::format("no GPU found: {}", fmt::join(set.notes, "; ")));
}

}  // namespace gpuwatch::cli
