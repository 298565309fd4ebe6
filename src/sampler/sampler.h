// The sampler: reads every device on absolute deadlines of a monotonic clock
// (so the schedule never drifts, unlike a sleep after each tick), and runs
// the calls that block in the driver on a second thread at their own cadence.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "backends/backend.h"
#include "core/sample.h"
#include "sampler/jitter.h"

namespace gpuwatch {

class HostReader;

// Receives everything the sampler produces. All calls come from the thread
// that called Sampler::run(), so sinks need no locking of their own.
class SampleSink {
 public:
  virtual ~SampleSink() = default;
  virtual void on_device_sample(const DeviceSample& sample) = 0;
  virtual void on_host_sample(const HostSample& sample) = 0;
  virtual void on_processes(const std::vector<GpuProcess>& processes, Timestamp seen) = 0;
  virtual void on_device_lost(int device_index, Timestamp when) = 0;
  // An error the driver reported on its own (an XID, an ECC error), with the
  // gpuwatch index in `event.device_index`. Delivered at the next tick. A
  // sink that has no use for them (a benchmark's) need not override this.
  virtual void on_device_event(const Event& event) { static_cast<void>(event); }
  // After all samples of one tick have been delivered.
  virtual void on_tick(Timestamp tick_time) = 0;
};

// Device events kept between two ticks. A storm (corrected ECC errors can
// come by thousands) must not grow the queue without bound; past this, each
// GPU's further events are counted and delivered as one events_dropped
// event (core/device_event_kinds.h) at the next tick.
inline constexpr std::size_t kMaxDeviceEventsPerTick = 1024;

struct SamplerOptions {
  std::chrono::nanoseconds interval = std::chrono::milliseconds(500);
  // Cadence of the blocking calls (energy, PCIe throughput, process lists)
  // and of host metrics. Zero: max(interval, 1 s).
  std::chrono::nanoseconds slow_interval{0};
  std::vector<int> gpus;  // global device indices to sample; empty: all
  bool devices = true;    // false: no GPU at all (CUDA_VISIBLE_DEVICES hides them all)
  bool host = true;
  bool processes = true;
  // Read the slow metrics once before the first tick, so that the first
  // sample has them all (sample --count 1). With many GPUs this delays the
  // first tick by ~45 ms per GPU; record turns it off and lets the slow
  // thread's first round, which starts at once, fill them in.
  bool prime_slow_metrics = true;
  // After stop(): one more sample with every metric, the costly ones too,
  // so that counters (energy) cover the whole recording.
  bool closing_sample = false;
};

class Sampler {
 public:
  Sampler(BackendSet& backends, HostReader* host, SamplerOptions options);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Samples until stop() or until max_ticks ticks (0: unlimited). Blocks.
  // Runs once: a stop() before run() makes it return at once.
  void run(SampleSink& sink, std::uint64_t max_ticks = 0);
  // Thread-safe and async-signal-unsafe: call from a normal thread.
  void stop();

  [[nodiscard]] JitterStats jitter() const { return jitter_.stats(); }
  [[nodiscard]] std::chrono::nanoseconds slow_interval() const { return slow_interval_; }

 private:
  struct Target {
    GpuBackend* backend;
    std::size_t local_index;
    int global_index;
    std::atomic<bool> lost{false};
  };
  // What the slow thread hands to the sampling thread.
  struct SlowMailbox {
    std::vector<DeviceValues> values;  // per target
    std::vector<std::int64_t> read_mono_ns;  // when each target's slow read began
    std::vector<bool> fresh;
    std::vector<bool> lost;
    std::vector<GpuProcess> processes;
    bool processes_fresh = false;
    HostSample host;
    bool host_fresh = false;
    Timestamp time;
  };

  void slow_loop();
  // Device events: one thread per backend that has a source, blocked in the
  // driver's wait (never on the sampling thread: it blocks for as long as no
  // error comes). Events wait in events_ for the next tick; those past
  // kMaxDeviceEventsPerTick only count in dropped_.
  std::vector<std::thread> start_event_threads();
  void event_loop(DeviceEventSource& source, const GpuBackend* backend);
  void stop_and_join(std::thread& slow, std::vector<std::thread>& event_threads);
  void deliver_events(SampleSink& sink);
  [[nodiscard]] bool stopping() const;
  void read_slow_once(SlowMailbox& into, SlowReadPlan plan);
  void read_slow_into_mailbox(const SlowReadPlan& plan);
  void merge_into_mailbox(SlowMailbox&& fresh);  // mutex_ held
  // Slow values waiting for the next tick of their device.
  struct Pending {
    DeviceValues values;
    std::int64_t read_mono_ns = 0;
  };
  void deliver_slow(SampleSink& sink, std::vector<Pending>& pending);
  void sample_devices(SampleSink& sink, std::vector<Pending>& pending, Timestamp time);
  void reset(SlowMailbox& box) const;
  bool wait_until(std::chrono::steady_clock::time_point deadline);

  std::vector<std::unique_ptr<Target>> targets_;
  std::vector<GpuBackend*> backends_;  // each once, those with a watched device
  std::vector<std::unique_ptr<DeviceEventSource>> event_sources_;  // one run's
  HostReader* host_;
  SamplerOptions options_;
  std::chrono::nanoseconds slow_interval_;

  mutable std::mutex mutex_;  // guards stopping_, mailbox_, events_ and dropped_
  std::condition_variable wake_;
  bool stopping_ = false;
  SlowMailbox mailbox_;
  std::vector<Event> events_;
  struct Dropped {
    std::int64_t count = 0;
    Event last;  // the latest one let go
  };
  std::map<int, Dropped> dropped_;  // by gpuwatch index
  JitterRecorder jitter_;
};

}  // namespace gpuwatch
