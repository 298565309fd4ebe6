// XID and ECC errors through NVML's event API: the driver queues them in an
// event set, and nvmlEventSetWait_v2 blocks until one comes. Unlike polling
// the ECC counters, this catches every XID (the counters have no XID at
// all), including the one that says a GPU fell off the bus.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/nvml/nvml_library.h"

namespace gpuwatch {

// The event types gpuwatch asks for: XIDs, double-bit (uncorrectable) and
// single-bit (corrected) ECC errors. P-state and clock changes are values the
// sampler already reads.
inline constexpr unsigned long long kNvmlWantedEvents =
    nvml::kEventXidCriticalError | nvml::kEventDoubleBitEcc | nvml::kEventSingleBitEcc;

class NvmlEventSource final : public DeviceEventSource {
 public:
  // Registers each device (by local index; a null handle is skipped) for the
  // wanted types it supports. Null where the library lacks any event entry
  // point, or no device supports any wanted type: not an error, there is
  // just nothing to wait for. `lib` must outlive the source.
  static std::unique_ptr<NvmlEventSource> open(const NvmlLibrary& lib, const std::vector<nvml::Device>& devices);
  ~NvmlEventSource() override;  // nvmlEventSetFree

  Wait wait(std::chrono::milliseconds timeout, DeviceEvent& out) override;

 private:
  NvmlEventSource(const NvmlLibrary& lib, nvml::EventSet set, std::vector<nvml::Device> devices);

  const NvmlLibrary& lib_;
  nvml::EventSet set_;
  std::vector<nvml::Device> devices_;
};

// "XID 79: GPU has fallen off the bus"; an XID not in the table gives its
// number only.
std::string xid_message(unsigned long long xid);

}  // namespace gpuwatch
