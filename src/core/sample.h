// Plain data that flows from the backends through the sampler to the store and
// the live sinks. No behaviour, no UI types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/metrics.h"
#include "core/process_attribution.h"

namespace gpuwatch {

// Both clocks, read together: monotonic for intervals (never jumps), wall for
// humans and exports. Nanoseconds.
struct Timestamp {
  std::int64_t mono_ns = 0;
  std::int64_t wall_ns = 0;
};

Timestamp now();

// One MIG (multi-instance GPU) device of a GPU in MIG mode: a slice with its
// own memory and SMs that CUDA sees as a GPU of its own.
struct MigInstance {
  std::string name;  // "NVIDIA H100 80GB HBM3 MIG 1g.10gb" where the driver names it
  std::string uuid;  // "MIG-...": what CUDA_VISIBLE_DEVICES takes
  std::optional<std::uint64_t> memory_total_bytes;
  std::optional<unsigned> gpu_instance_id;
  std::optional<unsigned> compute_instance_id;
};

// Static facts about one GPU, read once at discovery.
struct DeviceInfo {
  int index = 0;              // gpuwatch's index, unique across backends
  std::string backend;        // "nvml", "amdgpu", ...
  std::string vendor;         // "NVIDIA", "AMD", "Intel"
  std::string name;           // marketing name, e.g. "NVIDIA H100 80GB HBM3"
  std::string uuid;           // stable id where the driver gives one
  std::string pci_bus_id;     // "0000:3b:00.0"
  std::string driver_version;
  // Metrics this device answered during the probe. Others are absent.
  std::vector<DeviceMetric> supported;
  // Values that never change (maximum clocks, max PCIe link, memory total).
  DeviceValues static_values;
  // MIG mode as the driver reports it now; absent where the GPU has no MIG.
  std::optional<bool> mig_enabled;
  std::vector<MigInstance> mig_instances;  // empty unless MIG is enabled
};

struct DeviceSample {
  int device_index = 0;
  Timestamp time;
  DeviceValues values;
};

struct HostSample {
  Timestamp time;
  HostValues values;
  std::vector<double> core_percent;  // one entry per logical CPU, 0..100
};

// A process that holds memory on a GPU, as the driver lists it.
struct GpuProcess {
  int device_index = 0;
  std::uint32_t pid = 0;
  std::optional<std::uint64_t> used_memory_bytes;  // absent when the driver hides it
  // Its share of the GPU's SMs since the previous read, where the driver
  // gives it (NVML's per-process utilization).
  std::optional<double> gpu_percent;
  std::string kind;  // "compute", "graphics", "mps"
  std::string name;  // command name from procfs; empty if unknown (other namespace)
  bool in_tree = false;  // in the recorded command's process tree (set by the sampler)
  // Its job, container, pod or unit (set by the sampler from procfs).
  ProcessAttribution attribution;
  // Not in this procfs because gpuwatch sees a PID namespace below the
  // driver's (set by the sampler): not gone, only out of sight.
  bool other_pid_namespace = false;
};

// Something that happened at a point in time: a GPU lost, an XID error, ...
struct Event {
  Timestamp time;
  std::optional<int> device_index;
  std::string kind;     // core/device_event_kinds.h, "signal", "job_gpus", ...
  std::string message;
};

// How punctually the sampler kept its deadlines during a run.
struct JitterStats {
  std::int64_t ticks = 0;
  std::int64_t missed_deadlines = 0;  // ticks whose work ran past the next deadline
  double mean_late_ns = 0;
  double p99_late_ns = 0;  // upper edge of a log2 histogram bin: at most 2x too high
  double max_late_ns = 0;
};

}  // namespace gpuwatch
