#include "backends/nvml/nvml_backend.h"

#include <algorithm>
#include <atomic>
#include <bitset>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/nvml/nvml_events.h"
#include "backends/nvml/nvml_library.h"
#include "backends/nvml/nvml_mig.h"

namespace gpuwatch {

namespace {

using DM = DeviceMetric;

// One NVML call (or fallback chain) that can be switched off on its own.
enum class Feature : std::uint8_t {
  Utilization, MemoryV2, MemoryV1, Power, PowerLimit, Energy, TempGpu, TempMem,
  SmClock, MemClock, Fan, PerfState, ClockReasons, PcieGen, PcieWidth, PcieTx, PcieRx,
  ComputeProcs, GraphicsProcs, MpsProcs, ProcessUse, kCount
};
constexpr std::size_t kFeatureCount = static_cast<std::size_t>(Feature::kCount);
using Features = std::bitset<kFeatureCount>;
constexpr std::size_t bit(Feature f) { return static_cast<std::size_t>(f); }

// One pass over a device's calls. While probing (only at open, before other
// threads can see the device) a refusal switches its feature off; afterwards
// switched-off features are skipped without calling the driver. Once the GPU
// reports itself lost no further call is made.
class Pass {
 public:
  Pass(Features& enabled, bool probing) : enabled_(enabled), probing_(probing) {}

  template <typename Call>
  bool run(Feature f, Call&& call) {
    if (lost_ || !enabled_.test(bit(f))) return false;
    const nvml::Return rc = call();
    if (rc == nvml::kSuccess) return true;
    if (rc == nvml::kErrorGpuIsLost) lost_ = true;
    if (probing_ && nvml_refused_for_good(rc)) enabled_.reset(bit(f));
    return false;
  }

  // For static facts read once: no feature to switch off.
  template <typename Call>
  bool once(Call&& call) {
    if (lost_) return false;
    const nvml::Return rc = call();
    if (rc == nvml::kErrorGpuIsLost) lost_ = true;
    return rc == nvml::kSuccess;
  }

  [[nodiscard]] bool lost() const { return lost_; }

 private:
  Features& enabled_;
  bool probing_;
  bool lost_ = false;
};

std::optional<double> field_as_double(const nvml::FieldValue& v) {
  switch (v.value_type) {
    case nvml::kValueTypeDouble: return v.value.d;
    case nvml::kValueTypeUnsignedInt: return static_cast<double>(v.value.ui);
    case nvml::kValueTypeUnsignedLong: return static_cast<double>(v.value.ul);
    case nvml::kValueTypeUnsignedLongLong: return static_cast<double>(v.value.ull);
    case nvml::kValueTypeSignedLongLong: return static_cast<double>(v.value.sll);
    case nvml::kValueTypeSignedInt: return static_cast<double>(v.value.si);
    default: return std::nullopt;
  }
}

// NVML writes "00000000:3B:00.0"; sysfs and the other backends say
// "0000:3b:00.0". One spelling lets devices be matched across backends.
std::string normalize_bus_id(std::string id) {
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (id.find(':') == 8 && id.compare(0, 4, "0000") == 0) id.erase(0, 4);
  return id;
}

}  // namespace

struct NvmlBackend::Device {
  nvml::Device handle = nullptr;
  DeviceInfo info;
  Features enabled;  // written during open() only, read-only afterwards
  std::atomic<bool> lost{false};
  std::unique_ptr<NvmlGpm> gpm;  // null: no GPM on this device or driver
};

namespace {

void read_fast_values(const NvmlLibrary::Functions& f, nvml::Device h, Pass& pass,
                      DeviceValues& out) {
  nvml::Utilization util{};
  if (pass.run(Feature::Utilization, [&] { return f.utilization(h, &util); })) {
    out.set(DM::GpuUtilPercent, util.gpu);
    out.set(DM::MemUtilPercent, util.memory);
  }

  nvml::MemoryV2 mem2{};
  mem2.version = nvml::kMemoryV2Version;
  nvml::MemoryV1 mem1{};
  if (pass.run(Feature::MemoryV2, [&] { return f.memory_v2(h, &mem2); })) {
    out.set(DM::MemUsedBytes, static_cast<double>(mem2.used));
    out.set(DM::MemTotalBytes, static_cast<double>(mem2.total));
    out.set(DM::MemReservedBytes, static_cast<double>(mem2.reserved));
  } else if (pass.run(Feature::MemoryV1, [&] { return f.memory_v1(h, &mem1); })) {
    out.set(DM::MemUsedBytes, static_cast<double>(mem1.used));
    out.set(DM::MemTotalBytes, static_cast<double>(mem1.total));
  }

  unsigned mw = 0;
  if (pass.run(Feature::Power, [&] { return f.power_usage(h, &mw); })) {
    out.set(DM::PowerWatts, mw / 1000.0);
  }
}

// Read once per slow round, not every tick. Each NVML call costs ~17 µs of
// CPU when made from a 10 Hz loop on an H200 (cache-cold ioctl path), so the
// tick reads only utilization, memory and power, as `nvidia-smi --query-gpu`
// loops do; temperature, clocks and clock-event reasons change on a scale of
// seconds and cost the same again.
void read_slow_cheap_values(const NvmlLibrary::Functions& f, nvml::Device h, Pass& pass, DeviceValues& out) {
  unsigned mw = 0;
  if (pass.run(Feature::PowerLimit, [&] { return f.enforced_power_limit(h, &mw); })) {
    out.set(DM::PowerLimitWatts, mw / 1000.0);
  }

  unsigned value = 0;
  if (pass.run(Feature::TempGpu, [&] { return f.temperature(h, nvml::kTemperatureGpu, &value); })) {
    out.set(DM::TempGpuCelsius, value);
  }
  if (pass.run(Feature::SmClock, [&] { return f.clock(h, nvml::kClockSm, &value); })) {
    out.set(DM::SmClockMhz, value);
  }
  unsigned long long reasons = 0;
  if (pass.run(Feature::ClockReasons, [&] { return f.clock_event_reasons(h, &reasons); })) {
    out.set(DM::ClockEventReasons, static_cast<double>(reasons));
  }
  nvml::FieldValue field{};
  field.field_id = nvml::kFieldMemoryTemp;
  const bool have_field = pass.run(Feature::TempMem, [&] {
    const nvml::Return rc = f.field_values(h, 1, &field);
    return rc != nvml::kSuccess ? rc : field.nvml_return;
  });
  if (have_field) {
    if (const std::optional<double> celsius = field_as_double(field)) {
      out.set(DM::TempMemCelsius, *celsius);
    }
  }

  if (pass.run(Feature::MemClock, [&] { return f.clock(h, nvml::kClockMem, &value); })) {
    out.set(DM::MemClockMhz, value);
  }
  if (pass.run(Feature::Fan, [&] { return f.fan_speed(h, &value); })) {
    out.set(DM::FanPercent, value);
  }
  int pstate = nvml::kPstateUnknown;
  if (pass.run(Feature::PerfState, [&] { return f.performance_state(h, &pstate); }) &&
      pstate >= 0 && pstate <= 15) {
    out.set(DM::PerfState, pstate);
  }
  if (pass.run(Feature::PcieGen, [&] { return f.pcie_link_gen(h, &value); })) {
    out.set(DM::PcieLinkGen, value);
  }
  if (pass.run(Feature::PcieWidth, [&] { return f.pcie_link_width(h, &value); })) {
    out.set(DM::PcieLinkWidth, value);
  }
}

// Appends one entry per pid: a pid in several lists keeps its first kind and
// the first memory figure the driver knows.
// The driver's samples of the last second. Each process's samples carry
// their own times, which lag one another by up to seconds: asking for those
// newer than the newest of the previous read (as the API suggests) drops a
// busy process whose sample came a moment earlier than another's (seen on
// an H200: 0 % for a process pmon put at 59 %). A process idle since keeps
// its last, old sample: the window leaves it out.
constexpr unsigned long long kProcessUseWindowUs = 1'000'000;

// kErrorNotFound (no process used the GPU in the window) is an answer.
nvml::Return process_uses(const NvmlLibrary& lib, nvml::Device h, std::vector<NvmlLibrary::ProcessUse>& uses) {
  // The driver stamps samples with the CPU's wall clock, in microseconds.
  const auto now_us = static_cast<unsigned long long>(now().wall_ns / 1000);
  const nvml::Return rc = lib.process_utilization(h, now_us - kProcessUseWindowUs, uses);
  return rc == nvml::kErrorNotFound ? nvml::kSuccess : rc;
}

// Each found process's share of the SMs over the last second. The driver
// samples only processes that used the GPU, so a listed process without a
// sample used none of it: 0, not unknown.
void read_process_use(const NvmlLibrary& lib, nvml::Device h, Pass& pass, std::vector<GpuProcess>& found) {
  if (found.empty()) return;
  std::vector<NvmlLibrary::ProcessUse> uses;
  if (!pass.run(Feature::ProcessUse, [&] { return process_uses(lib, h, uses); })) return;
  for (GpuProcess& p : found) {
    const auto it = std::find_if(uses.begin(), uses.end(), [&](const auto& u) { return u.pid == p.pid; });
    p.gpu_percent = it != uses.end() ? it->sm_percent : 0.0;
  }
}

void read_slow_values(const NvmlLibrary& lib, nvml::Device h, const SlowReadPlan& plan, Pass& pass,
                      DeviceValues& out, std::vector<GpuProcess>& found) {
  const NvmlLibrary::Functions& f = lib.fn();
  if (plan.costly) {
    // The energy counter first: the sampler takes the start of this call as its time.
    unsigned long long mj = 0;
    if (pass.run(Feature::Energy, [&] { return f.total_energy(h, &mj); })) {
      out.set(DM::EnergyJoules, static_cast<double>(mj) / 1000.0);
    }
    // NVML's "KB" here is KiB.
    unsigned kbs = 0;
    if (pass.run(Feature::PcieTx, [&] { return f.pcie_throughput(h, nvml::kPcieUtilTxBytes, &kbs); })) {
      out.set(DM::PcieTxBytesPerSec, kbs * 1024.0);
    }
    if (pass.run(Feature::PcieRx, [&] { return f.pcie_throughput(h, nvml::kPcieUtilRxBytes, &kbs); })) {
      out.set(DM::PcieRxBytesPerSec, kbs * 1024.0);
    }
  }
  read_slow_cheap_values(f, h, pass, out);

  using Kind = NvmlLibrary::ProcessKind;
  const std::pair<Kind, Feature> kinds[] = {{Kind::Compute, Feature::ComputeProcs},
                                            {Kind::Graphics, Feature::GraphicsProcs},
                                            {Kind::Mps, Feature::MpsProcs}};
  const char* const kind_names[] = {"compute", "graphics", "mps"};
  std::vector<NvmlLibrary::Process> listed;
  for (const auto& entry : kinds) {
    if (!plan.processes) break;
    const Kind kind = entry.first;  // not a structured binding: older clangs cannot capture one
    listed.clear();
    if (!pass.run(entry.second, [&] { return lib.running_processes(kind, h, listed); })) continue;
    for (const NvmlLibrary::Process& e : listed) {
      auto same = std::find_if(found.begin(), found.end(),
                               [&](const GpuProcess& p) { return p.pid == e.pid; });
      if (same == found.end()) {
        GpuProcess p;
        p.pid = e.pid;
        p.used_memory_bytes = e.used_bytes;
        p.kind = kind_names[static_cast<std::size_t>(kind)];
        found.push_back(std::move(p));
      } else if (!same->used_memory_bytes) {
        same->used_memory_bytes = e.used_bytes;
      }
    }
  }
}

Features available_features(const NvmlLibrary::Functions& f) {
  Features s;
  s.set(bit(Feature::Utilization), f.utilization != nullptr);
  s.set(bit(Feature::MemoryV2), f.memory_v2 != nullptr);
  s.set(bit(Feature::MemoryV1), f.memory_v1 != nullptr);
  s.set(bit(Feature::Power), f.power_usage != nullptr);
  s.set(bit(Feature::PowerLimit), f.enforced_power_limit != nullptr);
  s.set(bit(Feature::Energy), f.total_energy != nullptr);
  s.set(bit(Feature::TempGpu), f.temperature != nullptr);
  s.set(bit(Feature::TempMem), f.field_values != nullptr);
  s.set(bit(Feature::SmClock), f.clock != nullptr);
  s.set(bit(Feature::MemClock), f.clock != nullptr);
  s.set(bit(Feature::Fan), f.fan_speed != nullptr);
  s.set(bit(Feature::PerfState), f.performance_state != nullptr);
  s.set(bit(Feature::ClockReasons), f.clock_event_reasons != nullptr);
  s.set(bit(Feature::PcieGen), f.pcie_link_gen != nullptr);
  s.set(bit(Feature::PcieWidth), f.pcie_link_width != nullptr);
  s.set(bit(Feature::PcieTx), f.pcie_throughput != nullptr);
  s.set(bit(Feature::PcieRx), f.pcie_throughput != nullptr);
  s.set(bit(Feature::ComputeProcs), f.compute_processes != nullptr);
  s.set(bit(Feature::GraphicsProcs), f.graphics_processes != nullptr);
  s.set(bit(Feature::MpsProcs), f.mps_processes != nullptr);
  s.set(bit(Feature::ProcessUse), f.process_utilization != nullptr);
  return s;
}

// Identity and maxima; a lost GPU shows up in pass.lost().
void read_static_facts(const NvmlLibrary& lib, nvml::Device h, Pass& pass, DeviceInfo& info) {
  const NvmlLibrary::Functions& f = lib.fn();
  char text[nvml::kStringBufferSize] = {};
  if (f.name != nullptr && pass.once([&] { return f.name(h, text, sizeof text); })) {
    info.name = nvml_c_string(text, sizeof text);
  }
  if (f.uuid != nullptr && pass.once([&] { return f.uuid(h, text, sizeof text); })) {
    info.uuid = nvml_c_string(text, sizeof text);
  }
  std::string bus_id;
  if (f.pci_info != nullptr && pass.once([&] { return lib.pci_bus_id(h, bus_id); })) {
    info.pci_bus_id = normalize_bus_id(bus_id);
  }
  unsigned value = 0;
  const auto read_static = [&](nvml::DeviceUintFn fn, DM metric) {
    if (fn != nullptr && pass.once([&] { return fn(h, &value); })) {
      info.static_values.set(metric, value);
    }
  };
  const auto read_max_clock = [&](int clock, DM metric) {
    if (f.max_clock != nullptr && pass.once([&] { return f.max_clock(h, clock, &value); })) {
      info.static_values.set(metric, value);
    }
  };
  read_max_clock(nvml::kClockSm, DM::SmClockMaxMhz);
  read_max_clock(nvml::kClockMem, DM::MemClockMaxMhz);
  read_static(f.pcie_link_gen_max, DM::PcieLinkGenMax);
  read_static(f.pcie_link_width_max, DM::PcieLinkWidthMax);
}

// The driver's version, or empty when it does not say.
std::string nvml_driver_version(const NvmlLibrary::Functions& f) {
  char text[nvml::kStringBufferSize] = {};
  if (f.system_driver_version != nullptr && f.system_driver_version(text, sizeof text) == nvml::kSuccess) {
    return nvml_c_string(text, sizeof text);
  }
  return {};
}

// Reads every metric once through `pass`, which turns off what the driver
// refuses, and returns what was read, the static facts merged in.
DeviceValues probe_values(const NvmlLibrary& lib, nvml::Device h, Pass& pass, DeviceInfo& info) {
  read_static_facts(lib, h, pass, info);
  DeviceValues probe;
  std::vector<GpuProcess> ignored;
  read_fast_values(lib.fn(), h, pass, probe);
  read_slow_values(lib, h, SlowReadPlan{}, pass, probe, ignored);
  // Probed even without processes, so that a driver without it is not asked at every read.
  std::vector<NvmlLibrary::ProcessUse> uses;
  pass.run(Feature::ProcessUse, [&] { return process_uses(lib, h, uses); });
  if (const std::optional<double> total = probe.get(DM::MemTotalBytes)) {
    info.static_values.set(DM::MemTotalBytes, *total);
  }
  probe.merge_from(info.static_values);
  return probe;
}

// A metric is supported when the probe read it. GPM's metrics need a
// window, so none was read yet: a GPM device is taken to give them all (one
// the driver refuses stays absent).
std::vector<DM> supported_metrics(const DeviceValues& probe, bool has_gpm) {
  const std::vector<DM> gpm_metrics = has_gpm ? NvmlGpm::metrics() : std::vector<DM>{};
  std::vector<DM> supported;
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    const auto metric = static_cast<DM>(m);
    if (probe.has(metric) || std::find(gpm_metrics.begin(), gpm_metrics.end(), metric) != gpm_metrics.end()) {
      supported.push_back(metric);
    }
  }
  return supported;
}

// What probing a device with a handle found besides its DeviceInfo.
struct ProbedDevice {
  std::unique_ptr<NvmlGpm> gpm;
  bool lost = false;
};

// Probes the features `enabled` (turning off those the driver refuses) and
// fills in `info`: static facts, supported metrics, MIG.
ProbedDevice probe_device(const NvmlLibrary& lib, nvml::Device h, Features& enabled, GpmClock gpm_clock,
                          DeviceInfo& info) {
  Pass pass(enabled, /*probing=*/true);
  const DeviceValues probe = probe_values(lib, h, pass, info);
  ProbedDevice probed;
  bool gpm_lost = false;
  if (!pass.lost()) probed.gpm = NvmlGpm::open(lib.fn(), h, gpm_clock, gpm_lost);
  info.supported = supported_metrics(probe, probed.gpm != nullptr);
  bool mig_lost = false;
  if (!pass.lost()) {
    NvmlMigFacts mig = read_mig_facts(lib, h, mig_lost);
    info.mig_enabled = mig.enabled;
    info.mig_instances = std::move(mig.instances);
  }
  probed.lost = pass.lost() || gpm_lost || mig_lost;
  return probed;
}

}  // namespace

NvmlBackend::NvmlBackend(std::unique_ptr<NvmlLibrary> library) : lib_(std::move(library)) {}

// Defined here, where Device is complete. Members go in reverse order, so the
// devices are gone before the library shuts NVML down.
NvmlBackend::~NvmlBackend() = default;

std::unique_ptr<NvmlBackend> NvmlBackend::open(std::unique_ptr<NvmlLibrary> library,
                                               std::string& why_not, GpmClock gpm_clock) {
  std::unique_ptr<NvmlBackend> backend(new NvmlBackend(std::move(library)));
  const NvmlLibrary& lib = *backend->lib_;
  const NvmlLibrary::Functions& f = lib.fn();

  unsigned count = 0;
  if (const nvml::Return rc = f.device_count(&count); rc != nvml::kSuccess) {
    why_not = "NVIDIA: cannot count GPUs: " + lib.error_string(rc);
    return nullptr;
  }
  if (count == 0) {
    why_not = "NVIDIA: driver loaded but it reports no GPUs";
    return nullptr;
  }

  const std::string driver_version = nvml_driver_version(f);
  std::string last_error;
  for (unsigned i = 0; i < count; ++i) {
    auto dev = std::make_unique<Device>();
    const nvml::Return rc = f.handle_by_index(i, &dev->handle);
    if (rc != nvml::kSuccess && rc != nvml::kErrorGpuIsLost) {
      // No handle, no way to ever read it: leave it out rather than show a
      // device that is permanently empty.
      last_error = "GPU " + std::to_string(i) + ": " + lib.error_string(rc);
      continue;
    }
    DeviceInfo& info = dev->info;
    info.index = static_cast<int>(backend->devices_.size());
    info.backend = "nvml";
    info.vendor = "NVIDIA";
    info.name = "NVIDIA GPU";
    info.driver_version = driver_version;
    if (rc == nvml::kErrorGpuIsLost) {
      // Kept so that the sampler records the loss instead of a GPU vanishing.
      dev->lost = true;
      backend->devices_.push_back(std::move(dev));
      continue;
    }
    dev->enabled = available_features(f);
    ProbedDevice probed = probe_device(lib, dev->handle, dev->enabled, gpm_clock, info);
    dev->gpm = std::move(probed.gpm);
    dev->lost = probed.lost;
    backend->devices_.push_back(std::move(dev));
  }

  if (backend->devices_.empty()) {
    why_not = "NVIDIA: no usable GPU (" + last_error + ")";
    return nullptr;
  }
  return backend;
}

std::vector<DeviceInfo> NvmlBackend::devices() const {
  std::vector<DeviceInfo> out;
  out.reserve(devices_.size());
  for (const auto& d : devices_) out.push_back(d->info);
  return out;
}

ReadStatus NvmlBackend::read_fast(std::size_t local_index, DeviceValues& out) {
  if (local_index >= devices_.size()) return ReadStatus::Lost;
  Device& d = *devices_[local_index];
  if (d.lost.load(std::memory_order_relaxed)) return ReadStatus::Lost;
  Features enabled = d.enabled;  // a copy: this thread never writes shared state
  Pass pass(enabled, /*probing=*/false);
  read_fast_values(lib_->fn(), d.handle, pass, out);
  if (!pass.lost()) return ReadStatus::Ok;
  d.lost.store(true, std::memory_order_relaxed);
  return ReadStatus::Lost;
}

ReadStatus NvmlBackend::read_slow(std::size_t local_index, const SlowReadPlan& plan, DeviceValues& out,
                                  std::vector<GpuProcess>& processes) {
  if (local_index >= devices_.size()) return ReadStatus::Lost;
  Device& d = *devices_[local_index];
  if (d.lost.load(std::memory_order_relaxed)) return ReadStatus::Lost;
  Features enabled = d.enabled;
  Pass pass(enabled, /*probing=*/false);
  std::vector<GpuProcess> found;
  read_slow_values(*lib_, d.handle, plan, pass, out, found);
  if (plan.processes) read_process_use(*lib_, d.handle, pass, found);
  const bool gpm_lost = !pass.lost() && d.gpm && d.gpm->read(out) == NvmlGpm::Status::Lost;
  if (pass.lost() || gpm_lost) {
    d.lost.store(true, std::memory_order_relaxed);
    return ReadStatus::Lost;
  }
  for (GpuProcess& p : found) {
    p.device_index = static_cast<int>(local_index);
    processes.push_back(std::move(p));
  }
  return ReadStatus::Ok;
}

std::unique_ptr<DeviceEventSource> NvmlBackend::open_events() {
  std::vector<nvml::Device> handles;
  handles.reserve(devices_.size());
  for (const auto& d : devices_) handles.push_back(d->lost.load(std::memory_order_relaxed) ? nullptr : d->handle);
  return NvmlEventSource::open(*lib_, handles);
}

std::unique_ptr<GpuBackend> open_nvml_backend(const SystemPaths& paths, std::string& why_not) {
  std::unique_ptr<NvmlLibrary> lib = NvmlLibrary::open(paths.nvml_library, why_not);
  if (!lib) return nullptr;
  return NvmlBackend::open(std::move(lib), why_not);
}

}  // namespace gpuwatch
