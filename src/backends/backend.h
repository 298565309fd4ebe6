// The one interface every GPU source implements. The sampler and the commands
// never name a vendor: they see a list of backends from open_backends().
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/system_paths.h"
#include "core/sample.h"

namespace gpuwatch {

enum class ReadStatus {
  Ok,    // values filled (some may be absent: unsupported)
  Lost,  // the device is gone (fell off the bus); do not call again
};

// What the slow thread asks for in one round.
struct SlowReadPlan {
  bool costly = true;     // also read the Costly metrics (see Cadence)
  bool processes = true;  // also list the processes on the device (bench does not want them)
};

// An error the driver reports on its own, as it happens (an XID, an ECC
// error), rather than a value read on a schedule.
struct DeviceEvent {
  std::size_t local_index = 0;  // the backend's device index
  Timestamp time;               // when the wait returned it
  std::string kind;             // core/device_event_kinds.h
  std::string message;          // for people: "XID 79: GPU has fallen off the bus"
};

// Where a backend's device events come from. The driver blocks a caller
// until an event comes, so one thread of its own waits here (see Sampler).
// Used from that one thread; the backend must outlive it.
class DeviceEventSource {
 public:
  enum class Wait {
    Event,    // `out` holds one
    Timeout,  // nothing came: the normal answer
    Failed,   // the driver refused this wait; a later one may work
  };
  virtual ~DeviceEventSource() = default;
  DeviceEventSource() = default;
  DeviceEventSource(const DeviceEventSource&) = delete;
  DeviceEventSource& operator=(const DeviceEventSource&) = delete;

  virtual Wait wait(std::chrono::milliseconds timeout, DeviceEvent& out) = 0;
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

  // Device events of this backend's GPUs, for a backend whose driver pushes
  // them; null where it has none (most drivers, an old NVML, no GPU with
  // any supported event). Each call opens a new source.
  virtual std::unique_ptr<DeviceEventSource> open_events() { return nullptr; }

  // Processes whose use of the GPUs the last process listing could not
  // read: other users', without root (DRM fdinfo, drm_fdinfo/fdinfo_scan.h).
  // 0 where the driver lists every process itself (NVML). Thread-safe: the
  // slow thread lists, a screen asks.
  [[nodiscard]] virtual std::size_t hidden_processes() const { return 0; }
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

// The most processes any backend could not see. Not their sum: the DRM
// backends share one fdinfo scan, so each counts the same processes.
std::size_t hidden_processes(const BackendSet& set);

}  // namespace gpuwatch
