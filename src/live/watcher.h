// The one place that opens the backends, the host reader and the sampler,
// from one validated set of options: record, sample, bench and top watch the
// machine the same way and refuse the same bad input with the same words.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/procfs/host.h"
#include "live/sample_bus.h"
#include "sampler/sampler.h"

namespace gpuwatch {

// Bad watch options (an interval out of range, a GPU that is not there): the
// message is meant for the user, and names the flag.
class WatchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr double kMinIntervalSeconds = 0.01;
inline constexpr double kMaxIntervalSeconds = 86400;

struct WatchOptions {
  double interval_s = 1.0;
  double slow_interval_s = 0;  // 0: max(interval, 1 s)
  std::vector<int> gpus;       // gpuwatch indices to watch; empty: every GPU
  bool no_gpus = false;        // watch no GPU at all (CUDA_VISIBLE_DEVICES hides them all)
  bool host = true;
  bool processes = true;
  bool prime_slow_metrics = true;  // SamplerOptions says when to turn it off
  bool closing_sample = false;
};

// Throws WatchError unless every index in `gpus` is one of `set`'s devices.
void check_gpu_indices(const std::vector<int>& gpus, const BackendSet& set);

class Watcher {
 public:
  // Opens every backend and the host reader under `paths`.
  explicit Watcher(const SystemPaths& paths);
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  [[nodiscard]] const BackendSet& backends() const { return backends_; }
  [[nodiscard]] HostReader& host() { return host_; }
  // The devices among `indices`, in the machine's order.
  [[nodiscard]] std::vector<DeviceInfo> devices(const std::vector<int>& indices) const;

  // Validates `options` and sets up the sampler; throws WatchError. Again
  // after run() has returned, for a new run with other options on the
  // backends already open (top's +/-: no driver opened anew, no device
  // discovered again).
  void prepare(const WatchOptions& options);
  // What the sampler delivers to; subscribe before run().
  [[nodiscard]] SampleBus& bus() { return bus_; }
  // Samples until stop() or `max_ticks` ticks (0: no limit). Blocks.
  void run(std::uint64_t max_ticks = 0);
  // Thread-safe.
  void stop();

  [[nodiscard]] std::vector<int> watched_gpus() const { return watched_; }
  [[nodiscard]] JitterStats jitter() const;
  [[nodiscard]] std::chrono::nanoseconds slow_interval() const;

 private:
  BackendSet backends_;
  HostReader host_;
  SampleBus bus_;
  std::vector<int> watched_;
  std::unique_ptr<Sampler> sampler_;
  std::atomic<bool> running_ = false;
};

}  // namespace gpuwatch
