// The sampler's one sink. Everything that wants samples (the store writer,
// the live window, the advisor, the status line) subscribes to the bus
// instead of being wired to the sampler by hand.
#pragma once

#include <vector>

#include "sampler/sampler.h"

namespace gpuwatch {

// Hands every call to its subscribers in the order they subscribed, on the
// sampling thread. A subscriber that can be slow must not be subscribed
// directly: wrap it in a QueuedSink (live/queued_sink.h), which gives it a
// thread of its own.
class SampleBus final : public SampleSink {
 public:
  // Before Sampler::run(); the subscriber must outlive the run.
  void subscribe(SampleSink& subscriber) { subscribers_.push_back(&subscriber); }
  [[nodiscard]] std::size_t subscriber_count() const { return subscribers_.size(); }

  void on_device_sample(const DeviceSample& sample) override;
  void on_host_sample(const HostSample& sample) override;
  void on_processes(const std::vector<GpuProcess>& processes, Timestamp seen) override;
  void on_device_lost(int device_index, Timestamp when) override;
  void on_device_event(const Event& event) override;
  void on_tick(Timestamp tick_time) override;

 private:
  std::vector<SampleSink*> subscribers_;
};

}  // namespace gpuwatch
