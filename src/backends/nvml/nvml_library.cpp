#include "backends/nvml/nvml_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace gpuwatch {

namespace {

struct VersionedSymbol {
  const char* symbol;
  int version;
};

// Newest first: old drivers lack the versioned names, new drivers keep the
// old ones only for binaries built against old headers (with old layouts).
template <typename Fn>
Fn lookup(void* handle, std::initializer_list<VersionedSymbol> candidates, int* version = nullptr) {
  for (const VersionedSymbol& c : candidates) {
    if (void* sym = dlsym(handle, c.symbol)) {
      if (version != nullptr) *version = c.version;
      return reinterpret_cast<Fn>(sym);
    }
  }
  return nullptr;
}

template <typename Fn>
Fn lookup(void* handle, const char* symbol) {
  return lookup<Fn>(handle, {{symbol, 1}});
}

// The size dance of NVML's lists: ask for the count, then fill a buffer with
// headroom because entries (processes) come between the two calls; retry a
// few times if they still outgrow it. `call(data, &count)` is one NVML call;
// on success `buffer` holds exactly the entries the driver wrote.
template <typename T, typename Call>
nvml::Return read_list(Call call, std::vector<T>& buffer) {
  unsigned count = 0;
  nvml::Return rc = call(nullptr, &count);
  for (int attempt = 0; attempt < 4 && rc == nvml::kErrorInsufficientSize; ++attempt) {
    buffer.assign(count + count / 2 + 8, T{});
    count = static_cast<unsigned>(buffer.size());
    rc = call(buffer.data(), &count);
  }
  buffer.resize(rc == nvml::kSuccess ? std::min<std::size_t>(count, buffer.size()) : 0);
  return rc;
}

// `Info` is the element layout of the resolved symbol's version.
template <typename Info>
nvml::Return list_processes(nvml::DeviceProcessesFn fn, nvml::Device device,
                            std::vector<NvmlLibrary::Process>& out) {
  std::vector<Info> buffer;
  const nvml::Return rc =
      read_list([&](Info* data, unsigned* count) { return fn(device, count, data); }, buffer);
  for (const Info& info : buffer) {
    NvmlLibrary::Process p;
    p.pid = info.pid;
    if (info.used_gpu_memory != nvml::kValueNotAvailable) p.used_bytes = info.used_gpu_memory;
    out.push_back(p);
  }
  return rc;
}

}  // namespace

NvmlLibrary::NvmlLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}

NvmlLibrary::~NvmlLibrary() {
  if (initialized_ && fn_.shutdown != nullptr) fn_.shutdown();
  if (handle_ != nullptr) dlclose(handle_);
}

std::unique_ptr<NvmlLibrary> NvmlLibrary::open(const std::string& path, std::string& why_not) {
  void* handle = nullptr;
  std::string loaded;
  if (!path.empty()) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* err = dlerror();
      why_not = "NVIDIA: cannot load NVML library (" + std::string(err != nullptr ? err : path) + ")";
      return nullptr;
    }
    loaded = path;
  } else {
    for (const char* name : {"libnvidia-ml.so.1", "libnvidia-ml.so"}) {
      handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (handle != nullptr) {
        loaded = name;
        break;
      }
    }
    if (handle == nullptr) {
      why_not = "NVIDIA: no driver (libnvidia-ml.so.1 not found)";
      return nullptr;
    }
  }

  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary(handle, loaded));
  lib->resolve_all();
  if (lib->fn_.init == nullptr || lib->fn_.device_count == nullptr ||
      lib->fn_.handle_by_index == nullptr) {
    why_not = "NVIDIA: " + loaded + " is not a usable NVML library (no nvmlInit)";
    return nullptr;
  }
  const nvml::Return rc = lib->fn_.init();
  if (rc != nvml::kSuccess) {
    if (rc == nvml::kErrorDriverNotLoaded) {
      why_not = "NVIDIA: driver not loaded (" + loaded + " found, but nvmlInit says " +
                lib->error_string(rc) + ")";
    } else {
      why_not = "NVIDIA: nvmlInit failed: " + lib->error_string(rc);
    }
    return nullptr;
  }
  lib->initialized_ = true;
  return lib;
}

void NvmlLibrary::resolve_all() {
  void* h = handle_;
  fn_.init = lookup<nvml::InitFn>(h, {{"nvmlInit_v2", 2}, {"nvmlInit", 1}});
  fn_.shutdown = lookup<nvml::ShutdownFn>(h, "nvmlShutdown");
  fn_.error_string = lookup<nvml::ErrorStringFn>(h, "nvmlErrorString");
  fn_.system_driver_version = lookup<nvml::SystemStringFn>(h, "nvmlSystemGetDriverVersion");
  fn_.device_count =
      lookup<nvml::GetCountFn>(h, {{"nvmlDeviceGetCount_v2", 2}, {"nvmlDeviceGetCount", 1}});
  fn_.handle_by_index = lookup<nvml::GetHandleByIndexFn>(
      h, {{"nvmlDeviceGetHandleByIndex_v2", 2}, {"nvmlDeviceGetHandleByIndex", 1}});
  fn_.name = lookup<nvml::DeviceStringFn>(h, "nvmlDeviceGetName");
  fn_.uuid = lookup<nvml::DeviceStringFn>(h, "nvmlDeviceGetUUID");
  fn_.pci_info = lookup<nvml::DevicePciInfoFn>(
      h, {{"nvmlDeviceGetPciInfo_v3", 3}, {"nvmlDeviceGetPciInfo_v2", 2}, {"nvmlDeviceGetPciInfo", 1}},
      &pci_info_version_);
  // Both memory calls are kept: a driver may export _v2 and still refuse it
  // (version mismatch), and then the plain call is the fallback.
  fn_.memory_v2 = lookup<nvml::DeviceMemoryV2Fn>(h, "nvmlDeviceGetMemoryInfo_v2");
  fn_.memory_v1 = lookup<nvml::DeviceMemoryV1Fn>(h, "nvmlDeviceGetMemoryInfo");
  fn_.utilization = lookup<nvml::DeviceUtilizationFn>(h, "nvmlDeviceGetUtilizationRates");
  fn_.power_usage = lookup<nvml::DeviceUintFn>(h, "nvmlDeviceGetPowerUsage");
  fn_.enforced_power_limit = lookup<nvml::DeviceUintFn>(h, "nvmlDeviceGetEnforcedPowerLimit");
  fn_.total_energy = lookup<nvml::DeviceUllFn>(h, "nvmlDeviceGetTotalEnergyConsumption");
  fn_.temperature = lookup<nvml::DeviceEnumUintFn>(h, "nvmlDeviceGetTemperature");
  fn_.field_values = lookup<nvml::DeviceFieldValuesFn>(h, "nvmlDeviceGetFieldValues");
  fn_.clock = lookup<nvml::DeviceEnumUintFn>(h, "nvmlDeviceGetClockInfo");
  fn_.max_clock = lookup<nvml::DeviceEnumUintFn>(h, "nvmlDeviceGetMaxClockInfo");
  fn_.fan_speed = lookup<nvml::DeviceUintFn>(h, "nvmlDeviceGetFanSpeed");
  fn_.performance_state = lookup<nvml::DeviceIntFn>(h, "nvmlDeviceGetPerformanceState");
  fn_.clock_event_reasons = lookup<nvml::DeviceUllFn>(
      h, {{"nvmlDeviceGetCurrentClocksEventReasons", 2},
          {"nvmlDeviceGetCurrentClocksThrottleReasons", 1}});
  fn_.pcie_link_gen = lookup<nvml::DeviceUintFn>(h, "nvmlDeviceGetCurrPcieLinkGeneration");
  fn_.pcie_link_width = lookup<nvml::DeviceUintFn>(h, "nvmlDeviceGetCurrPcieLinkWidth");
  fn_.pcie_link_gen_max = lookup<nvml::DeviceUintFn>(h, "nvmlDeviceGetMaxPcieLinkGeneration");
  fn_.pcie_link_width_max = lookup<nvml::DeviceUintFn>(h, "nvmlDeviceGetMaxPcieLinkWidth");
  fn_.pcie_throughput = lookup<nvml::DeviceEnumUintFn>(h, "nvmlDeviceGetPcieThroughput");
  fn_.compute_processes = lookup<nvml::DeviceProcessesFn>(
      h,
      {{"nvmlDeviceGetComputeRunningProcesses_v3", 3},
       {"nvmlDeviceGetComputeRunningProcesses_v2", 2},
       {"nvmlDeviceGetComputeRunningProcesses", 1}},
      &process_versions_[0]);
  fn_.graphics_processes = lookup<nvml::DeviceProcessesFn>(
      h,
      {{"nvmlDeviceGetGraphicsRunningProcesses_v3", 3},
       {"nvmlDeviceGetGraphicsRunningProcesses_v2", 2},
       {"nvmlDeviceGetGraphicsRunningProcesses", 1}},
      &process_versions_[1]);
  fn_.mps_processes = lookup<nvml::DeviceProcessesFn>(
      h,
      {{"nvmlDeviceGetMPSComputeRunningProcesses_v3", 3},
       {"nvmlDeviceGetMPSComputeRunningProcesses_v2", 2},
       {"nvmlDeviceGetMPSComputeRunningProcesses", 1}},
      &process_versions_[2]);
  fn_.process_utilization = lookup<nvml::DeviceProcessUtilizationFn>(h, "nvmlDeviceGetProcessUtilization");
  fn_.gpm_query_device_support = lookup<nvml::GpmQueryDeviceSupportFn>(h, "nvmlGpmQueryDeviceSupport");
  fn_.gpm_sample_alloc = lookup<nvml::GpmSampleAllocFn>(h, "nvmlGpmSampleAlloc");
  fn_.gpm_sample_free = lookup<nvml::GpmSampleFreeFn>(h, "nvmlGpmSampleFree");
  fn_.gpm_sample_get = lookup<nvml::GpmSampleGetFn>(h, "nvmlGpmSampleGet");
  fn_.gpm_metrics_get = lookup<nvml::GpmMetricsGetFn>(h, "nvmlGpmMetricsGet");
  fn_.event_set_create = lookup<nvml::EventSetCreateFn>(h, "nvmlEventSetCreate");
  fn_.event_set_free = lookup<nvml::EventSetFreeFn>(h, "nvmlEventSetFree");
  fn_.supported_event_types = lookup<nvml::DeviceUllFn>(h, "nvmlDeviceGetSupportedEventTypes");
  fn_.register_events = lookup<nvml::DeviceRegisterEventsFn>(h, "nvmlDeviceRegisterEvents");
  fn_.event_set_wait = lookup<nvml::EventSetWaitFn>(h, "nvmlEventSetWait_v2");
  fn_.mig_mode = lookup<nvml::DeviceMigModeFn>(h, "nvmlDeviceGetMigMode");
  fn_.max_mig_device_count = lookup<nvml::DeviceUintFn>(h, "nvmlDeviceGetMaxMigDeviceCount");
  fn_.mig_device_handle_by_index = lookup<nvml::DeviceIndexedHandleFn>(h, "nvmlDeviceGetMigDeviceHandleByIndex");
  fn_.gpu_instance_id = lookup<nvml::DeviceUintFn>(h, "nvmlDeviceGetGpuInstanceId");
  fn_.compute_instance_id = lookup<nvml::DeviceUintFn>(h, "nvmlDeviceGetComputeInstanceId");
}

nvml::Return NvmlLibrary::pci_bus_id(nvml::Device device, std::string& out) const {
  nvml::PciInfo pci{};
  const nvml::Return rc = fn_.pci_info(device, &pci);
  if (rc == nvml::kSuccess) {
    out = pci_info_version_ >= 2 ? nvml_c_string(pci.bus_id, sizeof pci.bus_id)
                                 : nvml_c_string(pci.bus_id_legacy, sizeof pci.bus_id_legacy);
  }
  return rc;
}

nvml::Return NvmlLibrary::running_processes(ProcessKind kind, nvml::Device device,
                                            std::vector<Process>& out) const {
  const auto index = static_cast<std::size_t>(kind);
  const nvml::DeviceProcessesFn fns[] = {fn_.compute_processes, fn_.graphics_processes,
                                         fn_.mps_processes};
  return process_versions_[index] >= 2
             ? list_processes<nvml::ProcessInfoV2>(fns[index], device, out)
             : list_processes<nvml::ProcessInfoV1>(fns[index], device, out);
}

nvml::Return NvmlLibrary::process_utilization(nvml::Device device, unsigned long long since_us,
                                              std::vector<ProcessUse>& out) const {
  std::vector<nvml::ProcessUtilizationSample> buffer;
  const nvml::Return rc = read_list(
      [&](nvml::ProcessUtilizationSample* data, unsigned* count) {
        return fn_.process_utilization(device, data, count, since_us);
      },
      buffer);
  if (rc != nvml::kSuccess) return rc;
  std::vector<unsigned> samples;  // per entry of `out`
  for (const nvml::ProcessUtilizationSample& s : buffer) {
    auto it = std::find_if(out.begin(), out.end(), [&](const ProcessUse& u) { return u.pid == s.pid; });
    if (it == out.end()) {
      out.push_back(ProcessUse{s.pid, 0});
      samples.push_back(0);
      it = out.end() - 1;
    }
    const auto k = static_cast<std::size_t>(it - out.begin());
    // A running mean: the driver's percentages, never beyond 100 whatever it says.
    it->sm_percent += (std::min(s.sm_util, 100u) - it->sm_percent) / ++samples[k];
  }
  return rc;
}

std::string NvmlLibrary::error_string(nvml::Return rc) const {
  const char* text = fn_.error_string != nullptr ? fn_.error_string(rc) : nullptr;
  if (text == nullptr || *text == '\0') return "NVML error " + std::to_string(rc);
  return std::string(text) + " (" + std::to_string(rc) + ")";
}

std::string nvml_c_string(const char* buffer, std::size_t size) {
  return std::string(buffer, strnlen(buffer, size));
}

}  // namespace gpuwatch
