// NVIDIA GPM (GPU performance monitoring): SM activity and occupancy, tensor
// and FP pipes, DRAM bandwidth and NVLink traffic, which plain NVML
// utilization does not show (a GPU it calls a quarter busy can have every SM
// active). Hopper and newer, drivers of R520 and later.
//
// GPM gives no instantaneous values: a metric is an average over the window
// between two samples of the device's counters, and windows under 100 ms are
// invalid (the driver's internal refresh rate). One NvmlGpm per device keeps
// the previous sample; each read takes a new one and computes the metrics
// over the window since, once a second on the slow thread.
//
// MIG: a MIG-enabled GPU's own handle is not sampled per instance here
// (nvmlGpmMigSampleGet would be); where the driver refuses, GPM is off.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/nvml/nvml_library.h"
#include "core/metrics.h"

namespace gpuwatch {

// Monotonic nanoseconds. Tests pass their own, so that a window of a second
// needs no second of waiting.
using GpmClock = std::function<std::int64_t()>;

// GPM's floor: two samples closer than this give no valid metrics.
inline constexpr std::int64_t kGpmMinWindowNs = 100'000'000;

class NvmlGpm {
 public:
  enum class Status {
    Ok,          // the metrics the driver gave are in `out`
    NoWindow,    // first sample, or under 100 ms since the previous: nothing
    Failed,      // this read gave nothing; the next may
    Off,         // refused for good: GPM is off for this device
    Lost,        // the GPU is lost
  };

  // Null where the library lacks any GPM entry point, the device is not a
  // GPM device, or no sample can be allocated or taken; `lost` is set when
  // the GPU reported itself lost meanwhile. Takes the first sample, so the
  // first read() already has a window.
  static std::unique_ptr<NvmlGpm> open(const NvmlLibrary::Functions& f, nvml::Device device,
                                       GpmClock clock, bool& lost);
  ~NvmlGpm();  // frees the samples
  NvmlGpm(const NvmlGpm&) = delete;
  NvmlGpm& operator=(const NvmlGpm&) = delete;

  // Sets the GPM metrics over the window since the previous sample, each
  // only where the driver computed it; a value that is not a finite
  // non-negative number is left out. Thread-safe.
  Status read(DeviceValues& out);

  // The catalogue's metrics GPM can give, in catalogue order.
  static std::vector<DeviceMetric> metrics();

 private:
  NvmlGpm(const NvmlLibrary::Functions& f, nvml::Device device, GpmClock clock);

  const NvmlLibrary::Functions& fn_;
  nvml::Device device_;
  GpmClock clock_;
  std::mutex mutex_;
  nvml::GpmSample previous_ = nullptr;  // taken at previous_ns_
  nvml::GpmSample next_ = nullptr;
  std::int64_t previous_ns_ = 0;
  bool off_ = false;
  std::unique_ptr<nvml::GpmMetricsGet> request_;  // 13 KB: one per device, reused
};

}  // namespace gpuwatch
