// NVIDIA GPUs through NVML, loaded at run time (see nvml_library.h).
//
// Every metric is probed once when the backend opens: a call the driver
// refuses for good (not supported, no permission, symbol missing) is never
// made again, as btop does, so an unsupported fan costs nothing per tick.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/nvml/nvml_gpm.h"

namespace gpuwatch {

class NvmlLibrary;

class NvmlBackend final : public GpuBackend {
 public:
  // Discovers devices, reads their static facts and probes every metric.
  // Returns null with a one-line reason when the driver has no usable GPU.
  // `gpm_clock` times GPM's windows (empty: the monotonic clock).
  static std::unique_ptr<NvmlBackend> open(std::unique_ptr<NvmlLibrary> library,
                                           std::string& why_not, GpmClock gpm_clock = {});
  ~NvmlBackend() override;

  [[nodiscard]] std::string name() const override { return "nvml"; }
  [[nodiscard]] std::vector<DeviceInfo> devices() const override;
  ReadStatus read_fast(std::size_t local_index, DeviceValues& out) override;
  // Appends this device's processes (device_index = local index), one entry
  // per pid even when the driver lists it as compute and graphics.
  ReadStatus read_slow(std::size_t local_index, const SlowReadPlan& plan, DeviceValues& out,
                       std::vector<GpuProcess>& processes) override;
  // XID and ECC events of every device not lost at open (nvml_events.h).
  std::unique_ptr<DeviceEventSource> open_events() override;

 private:
  struct Device;
  explicit NvmlBackend(std::unique_ptr<NvmlLibrary> library);

  std::unique_ptr<NvmlLibrary> lib_;
  std::vector<std::unique_ptr<Device>> devices_;
};

// The registry's factory: paths.nvml_library or the system's libnvidia-ml.
std::unique_ptr<GpuBackend> open_nvml_backend(const SystemPaths& paths, std::string& why_not);

}  // namespace gpuwatch
