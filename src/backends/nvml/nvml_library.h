// The NVML shared library, opened at run time so that one gpuwatch binary runs
// on machines with and without an NVIDIA driver. Every entry point is looked up
// newest version first; one the driver lacks stays null and the backend treats
// its metric as unsupported.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/nvml/nvml_api.h"

namespace gpuwatch {

class NvmlLibrary {
 public:
  // Entry points; null where the library does not export any of the names.
  struct Functions {
    nvml::InitFn init = nullptr;
    nvml::ShutdownFn shutdown = nullptr;
    nvml::ErrorStringFn error_string = nullptr;
    nvml::SystemStringFn system_driver_version = nullptr;
    nvml::GetCountFn device_count = nullptr;
    nvml::GetHandleByIndexFn handle_by_index = nullptr;
    nvml::DeviceStringFn name = nullptr;
    nvml::DeviceStringFn uuid = nullptr;
    nvml::DevicePciInfoFn pci_info = nullptr;
    nvml::DeviceMemoryV2Fn memory_v2 = nullptr;
    nvml::DeviceMemoryV1Fn memory_v1 = nullptr;
    nvml::DeviceUtilizationFn utilization = nullptr;
    nvml::DeviceUintFn power_usage = nullptr;
    nvml::DeviceUintFn enforced_power_limit = nullptr;
    nvml::DeviceUllFn total_energy = nullptr;
    nvml::DeviceEnumUintFn temperature = nullptr;
    nvml::DeviceFieldValuesFn field_values = nullptr;
    nvml::DeviceEnumUintFn clock = nullptr;
    nvml::DeviceEnumUintFn max_clock = nullptr;
    nvml::DeviceUintFn fan_speed = nullptr;
    nvml::DeviceIntFn performance_state = nullptr;
    nvml::DeviceUllFn clock_event_reasons = nullptr;
    nvml::DeviceUintFn pcie_link_gen = nullptr;
    nvml::DeviceUintFn pcie_link_width = nullptr;
    nvml::DeviceUintFn pcie_link_gen_max = nullptr;
    nvml::DeviceUintFn pcie_link_width_max = nullptr;
    nvml::DeviceEnumUintFn pcie_throughput = nullptr;
    nvml::DeviceProcessesFn compute_processes = nullptr;
    nvml::DeviceProcessesFn graphics_processes = nullptr;
    nvml::DeviceProcessesFn mps_processes = nullptr;
    nvml::DeviceProcessUtilizationFn process_utilization = nullptr;
    // GPM: drivers of the CUDA 11.8 generation (R520) and later.
    nvml::GpmQueryDeviceSupportFn gpm_query_device_support = nullptr;
    nvml::GpmSampleAllocFn gpm_sample_alloc = nullptr;
    nvml::GpmSampleFreeFn gpm_sample_free = nullptr;
    nvml::GpmSampleGetFn gpm_sample_get = nullptr;
    nvml::GpmMetricsGetFn gpm_metrics_get = nullptr;
    // Events. nvmlEventSetWait_v2 (drivers of R450 and later) is the only
    // wait that says which MIG instance an XID came from.
    nvml::EventSetCreateFn event_set_create = nullptr;
    nvml::EventSetFreeFn event_set_free = nullptr;
    nvml::DeviceUllFn supported_event_types = nullptr;
    nvml::DeviceRegisterEventsFn register_events = nullptr;
    nvml::EventSetWaitFn event_set_wait = nullptr;
    // MIG (Ampere datacenter parts and newer, R450 and later).
    nvml::DeviceMigModeFn mig_mode = nullptr;
    nvml::DeviceUintFn max_mig_device_count = nullptr;
    nvml::DeviceIndexedHandleFn mig_device_handle_by_index = nullptr;
    nvml::DeviceUintFn gpu_instance_id = nullptr;
    nvml::DeviceUintFn compute_instance_id = nullptr;
  };

  enum class ProcessKind { Compute, Graphics, Mps };
  struct Process {
    std::uint32_t pid = 0;
    std::optional<std::uint64_t> used_bytes;  // absent: the driver does not say
  };

  // Loads `path` (empty: libnvidia-ml.so.1, then libnvidia-ml.so) and calls
  // nvmlInit. On failure returns null and a one-line reason for the user.
  static std::unique_ptr<NvmlLibrary> open(const std::string& path, std::string& why_not);

  ~NvmlLibrary();  // nvmlShutdown, then dlclose
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  [[nodiscard]] const Functions& fn() const { return fn_; }
  [[nodiscard]] const std::string& path() const { return path_; }

  // The calls below hide layouts that differ between symbol versions.

  // "00000000:3B:00.0" as the driver spells it. Needs fn().pci_info.
  nvml::Return pci_bus_id(nvml::Device device, std::string& out) const;

  // Appends the processes of one kind. Needs that kind's function in fn().
  nvml::Return running_processes(ProcessKind kind, nvml::Device device,
                                 std::vector<Process>& out) const;

  // Each process's share of the SMs in the driver's samples newer than
  // `since_us` (its wall clock, in microseconds), averaged per pid. Only
  // processes that used the GPU have samples: kErrorNotFound means none did.
  // Needs fn().process_utilization.
  struct ProcessUse {
    std::uint32_t pid = 0;
    double sm_percent = 0;
  };
  nvml::Return process_utilization(nvml::Device device, unsigned long long since_us,
                                   std::vector<ProcessUse>& out) const;

  // "Not Supported (3)": the driver's words where it has nvmlErrorString.
  [[nodiscard]] std::string error_string(nvml::Return rc) const;

 private:
  NvmlLibrary(void* handle, std::string path);
  void resolve_all();

  void* handle_ = nullptr;
  std::string path_;
  bool initialized_ = false;
  Functions fn_;
  // Version of the symbol found, where it decides the struct layout.
  int pci_info_version_ = 0;     // 1: only the leading legacy bus id is written
  int process_versions_[3] = {};  // per ProcessKind; 1: ProcessInfoV1 elements
};

// Answers that will not change while the driver stays loaded. Invalid
// argument and version mismatch are included: retrying the same arguments
// cannot succeed either.
inline bool nvml_refused_for_good(nvml::Return rc) {
  return rc == nvml::kErrorNotSupported || rc == nvml::kErrorNoPermission ||
         rc == nvml::kErrorFunctionNotFound || rc == nvml::kErrorInvalidArgument ||
         rc == nvml::kErrorArgumentVersionMismatch;
}

// The text of a fixed-size char buffer the driver filled, which it may leave
// without a terminating NUL when the text fills it.
std::string nvml_c_string(const char* buffer, std::size_t size);

}  // namespace gpuwatch
