// MIG (multi-instance GPU): a GPU split into slices that CUDA sees as GPUs of
// their own, each with its own memory. Listed at discovery so that a user
// can tell what `CUDA_VISIBLE_DEVICES=MIG-...` names and how big each is.
// Read once: instances change only when an administrator reconfigures the
// GPU, and a monitor that follows that would re-open NVML anyway.
#pragma once

#include <optional>
#include <vector>

#include "backends/nvml/nvml_library.h"
#include "core/sample.h"

namespace gpuwatch {

struct NvmlMigFacts {
  std::optional<bool> enabled;  // absent: the GPU (or driver) has no MIG
  std::vector<MigInstance> instances;
};

// MIG mode and, where it is on, every MIG device the driver lists. Calls
// that fail leave their facts out; `lost` is set when the GPU said it is lost.
NvmlMigFacts read_mig_facts(const NvmlLibrary& lib, nvml::Device gpu, bool& lost);

}  // namespace gpuwatch
