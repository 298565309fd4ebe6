// The one interface every GPU source implements. The sampler and the commands
// never name a vendor: they see a list of backends from open_backends().
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

// Where to read the system from. Passed in, never global, so tests can point
// several backends at several fixture trees at once.
struct SystemPaths {
  std::filesystem::path sysfs_root = "/sys";
  std::filesystem::path procfs_root = "/proc";
  std::string nvml_library;  // empty: the system's libnvidia-ml.so.1

  // Reads GPUWATCH_SYSFS_ROOT, GPUWATCH_PROCFS_ROOT, GPUWATCH_NVML_LIBRARY.
  static SystemPaths from_environment();
};

enum class ReadStatus {
  Ok,    // values filled (some may be absent: unsupported)
  Lost,  // the device is gone (fell off the bus); do not call again
};

// What the slow thread asks for in one round.
struct SlowReadPlan {
  bool costly = true;     // also read the Costly metrics (see Cadence)
  bool processes = true;  // also list the processes on the device (bench does not want them)
};

class GpuBackend {
 public:
  virtual ~GpuBackend() = default;
  GpuBackend() = default;
  GpuBackend(const GpuBackend&) = delete;
  GpuBackend& operator=(const GpuBackend&) = delete;

  [[nodiscard]] virtual std::string name() const = 0;

  // Devices found when the backend was opened. DeviceInfo::index is the
  // backend-local index here; the registry renumbers them globally.
  [[nodiscard]] virtual std::vector<DeviceInfo> devices() const = 0;

  // The Fast metrics (microseconds each): called every tick from the
  // sampling thread.
  virtual ReadStatus read_fast(std::size_t local_index, DeviceValues& out) = 0;

  // The Slow metrics, the Costly ones when the plan says so, and the
  // processes on the device: called from the slow thread, possibly
  // concurrently with read_fast() on the same device. Implementations must be
  // thread-safe for that pair.
  virtual ReadStatus read_slow(std::size_t local_index, const SlowReadPlan& plan, DeviceValues& out,
                               std::vector<GpuProcess>& processes) = 0;
};

// A backend together with the global index of its first device.
struct OpenBackend {
  std::unique_ptr<GpuBackend> backend;
  int first_global_index = 0;
};

struct BackendSet {
  std::vector<OpenBackend> backends;
  std::vector<DeviceInfo> devices;     // global indices, in order
  std::vector<std::string> notes;      // one line per backend that found nothing and why
};

// Tries every registered backend; keeps those that find devices.
BackendSet open_backends(const SystemPaths& paths);

}  // namespace gpuwatch
