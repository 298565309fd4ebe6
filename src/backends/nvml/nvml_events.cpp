#include "backends/nvml/nvml_events.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "core/device_event_kinds.h"

namespace gpuwatch {

namespace {

// Well-known XIDs, in the words of NVIDIA's XID catalogue. The catalogue has
// hundreds; these are the ones ML clusters meet and search for.
struct XidMeaning {
  unsigned long long xid;
  const char* meaning;
};
constexpr XidMeaning kXidMeanings[] = {
    {13, "Graphics Engine Exception"},
    {31, "GPU memory page fault"},
    {43, "GPU stopped processing"},
    {45, "Preemptive cleanup, due to previous errors"},
    {48, "Double Bit ECC Error"},
    {61, "Internal micro-controller breakpoint/warning"},
    {62, "Internal micro-controller halt"},
    {63, "ECC page retirement or row remapping recording event"},
    {64, "ECC page retirement or row remapper recording failure"},
    {74, "NVLink Error"},
    {79, "GPU has fallen off the bus"},
    {92, "High single-bit ECC error rate"},
    {94, "Contained ECC error"},
    {95, "Uncontained ECC error"},
    {119, "GSP RPC timeout"},
    {120, "GSP error"},
};

// NVML's eventData for an XID the driver could not name.
constexpr unsigned long long kUnknownXid = 999;

// " (GPU instance 1, compute instance 0)" where the driver ties the event to
// a MIG instance: on a MIG GPU, which tenant's work failed.
std::string instance_suffix(const nvml::EventData& data) {
  if (data.gpu_instance_id == nvml::kNoInstance) return {};
  if (data.compute_instance_id == nvml::kNoInstance) {
    return fmt::format(" (GPU instance {})", data.gpu_instance_id);
  }
  return fmt::format(" (GPU instance {}, compute instance {})", data.gpu_instance_id, data.compute_instance_id);
}

}  // namespace

std::string xid_message(unsigned long long xid) {
  if (xid == kUnknownXid) return "XID error (the driver did not say which)";
  const auto* it = std::find_if(std::begin(kXidMeanings), std::end(kXidMeanings),
                                [xid](const XidMeaning& m) { return m.xid == xid; });
  if (it == std::end(kXidMeanings)) return fmt::format("XID {}", xid);
  return fmt::format("XID {}: {}", xid, it->meaning);
}

NvmlEventSource::NvmlEventSource(const NvmlLibrary& lib, nvml::EventSet set, std::vector<nvml::Device> devices)
    : lib_(lib), set_(set), devices_(std::move(devices)) {}

NvmlEventSource::~NvmlEventSource() { lib_.fn().event_set_free(set_); }

std::unique_ptr<NvmlEventSource> NvmlEventSource::open(const NvmlLibrary& lib,
                                                       const std::vector<nvml::Device>& devices) {
  const NvmlLibrary::Functions& f = lib.fn();
  if (f.event_set_create == nullptr || f.event_set_free == nullptr || f.supported_event_types == nullptr ||
      f.register_events == nullptr || f.event_set_wait == nullptr) {
    return nullptr;  // a driver older than the _v2 wait
  }
  nvml::EventSet set = nullptr;
  if (f.event_set_create(&set) != nvml::kSuccess || set == nullptr) return nullptr;
  std::unique_ptr<NvmlEventSource> source(new NvmlEventSource(lib, set, devices));
  bool any = false;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] == nullptr) continue;
    // Not supported (consumer parts have no ECC, some none at all) is a
    // normal answer: that device just brings no events.
    unsigned long long supported = 0;
    if (f.supported_event_types(devices[i], &supported) != nvml::kSuccess) continue;
    const unsigned long long mask = supported & kNvmlWantedEvents;
    if (mask == 0 || f.register_events(devices[i], mask, set) != nvml::kSuccess) continue;
    any = true;
  }
  if (!any) return nullptr;
  return source;
}

DeviceEventSource::Wait NvmlEventSource::wait(std::chrono::milliseconds timeout, DeviceEvent& out) {
  nvml::EventData data{};
  data.gpu_instance_id = nvml::kNoInstance;
  data.compute_instance_id = nvml::kNoInstance;
  const auto ms = static_cast<unsigned>(std::clamp<std::chrono::milliseconds::rep>(timeout.count(), 0, 60'000));
  const nvml::Return rc = lib_.fn().event_set_wait(set_, &data, ms);
  if (rc == nvml::kErrorTimeout) return Wait::Timeout;
  if (rc != nvml::kSuccess) return Wait::Failed;
  const auto it = std::find(devices_.begin(), devices_.end(), data.device);
  // An event of a handle that is none of ours: nothing to attribute it to.
  if (data.device == nullptr || it == devices_.end()) return Wait::Timeout;
  out.local_index = static_cast<std::size_t>(it - devices_.begin());
  out.time = now();
  if (data.event_type == nvml::kEventXidCriticalError) {
    out.kind = kXidEventKind;
    out.message = xid_message(data.event_data) + instance_suffix(data);
  } else if (data.event_type == nvml::kEventDoubleBitEcc) {
    out.kind = kEccDoubleBitEventKind;
    out.message = "double-bit ECC error (uncorrectable: the data it hit is lost)" + instance_suffix(data);
  } else if (data.event_type == nvml::kEventSingleBitEcc) {
    out.kind = kEccSingleBitEventKind;
    out.message = "single-bit ECC error (corrected)" + instance_suffix(data);
  } else {
    out.kind = kNvmlEventKind;
    out.message = fmt::format("NVML event type {:#x}, data {}", data.event_type, data.event_data);
  }
  return Wait::Event;
}

}  // namespace gpuwatch
