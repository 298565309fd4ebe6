#include "backends/nvml/nvml_mig.h"

namespace gpuwatch {

namespace {

// The same reads as a whole GPU's, on a MIG device handle (the driver takes
// one wherever it takes a GPU's for these calls).
MigInstance read_instance(const NvmlLibrary& lib, nvml::Device mig) {
  const NvmlLibrary::Functions& f = lib.fn();
  MigInstance out;
  char text[nvml::kStringBufferSize] = {};
  if (f.name != nullptr && f.name(mig, text, sizeof text) == nvml::kSuccess) out.name = nvml_c_string(text, sizeof text);
  if (f.uuid != nullptr && f.uuid(mig, text, sizeof text) == nvml::kSuccess) out.uuid = nvml_c_string(text, sizeof text);
  nvml::MemoryV2 mem2{};
  mem2.version = nvml::kMemoryV2Version;
  nvml::MemoryV1 mem1{};
  if (f.memory_v2 != nullptr && f.memory_v2(mig, &mem2) == nvml::kSuccess) {
    out.memory_total_bytes = mem2.total;
  } else if (f.memory_v1 != nullptr && f.memory_v1(mig, &mem1) == nvml::kSuccess) {
    out.memory_total_bytes = mem1.total;
  }
  unsigned id = 0;
  if (f.gpu_instance_id != nullptr && f.gpu_instance_id(mig, &id) == nvml::kSuccess) out.gpu_instance_id = id;
  if (f.compute_instance_id != nullptr && f.compute_instance_id(mig, &id) == nvml::kSuccess) {
    out.compute_instance_id = id;
  }
  return out;
}

}  // namespace

NvmlMigFacts read_mig_facts(const NvmlLibrary& lib, nvml::Device gpu, bool& lost) {
  const NvmlLibrary::Functions& f = lib.fn();
  NvmlMigFacts facts;
  if (f.mig_mode == nullptr) return facts;
  unsigned current = 0;
  unsigned pending = 0;
  const nvml::Return rc = f.mig_mode(gpu, &current, &pending);
  if (rc == nvml::kErrorGpuIsLost) lost = true;
  if (rc != nvml::kSuccess) return facts;  // not supported: a GPU without MIG
  facts.enabled = current == nvml::kMigEnabled;
  if (!*facts.enabled || f.max_mig_device_count == nullptr || f.mig_device_handle_by_index == nullptr) return facts;
  unsigned slots = 0;
  if (f.max_mig_device_count(gpu, &slots) != nvml::kSuccess) return facts;
  // The slots are sparse: an index without a MIG device answers "not found".
  for (unsigned i = 0; i < slots; ++i) {
    nvml::Device mig = nullptr;
    const nvml::Return slot_rc = f.mig_device_handle_by_index(gpu, i, &mig);
    if (slot_rc == nvml::kErrorGpuIsLost) {
      lost = true;
      break;
    }
    if (slot_rc == nvml::kSuccess && mig != nullptr) facts.instances.push_back(read_instance(lib, mig));
  }
  return facts;
}

}  // namespace gpuwatch
