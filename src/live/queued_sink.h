// A subscriber of the SampleBus that may be slow (a SQLite commit that waits
// for the disk, the advisor) gets its own thread: the sampling thread only
// appends to a queue, so no subscriber can delay a tick.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

#include "sampler/sampler.h"

namespace gpuwatch {

class QueuedSink final : public SampleSink {
 public:
  // At most `max_queued_ticks` whole ticks wait for `target`; the ticks that
  // arrive beyond that are dropped whole (never half a tick) and counted.
  // The store keeps its own bounded backlog for a disk that is full; this
  // bound is for a subscriber that stopped keeping up at all.
  explicit QueuedSink(SampleSink& target, std::size_t max_queued_ticks = 3000);
  // Delivers what is queued, then stops the thread.
  ~QueuedSink() override;
  QueuedSink(const QueuedSink&) = delete;
  QueuedSink& operator=(const QueuedSink&) = delete;

  void on_device_sample(const DeviceSample& sample) override;
  void on_host_sample(const HostSample& sample) override;
  void on_processes(const std::vector<GpuProcess>& processes, Timestamp seen) override;
  void on_device_lost(int device_index, Timestamp when) override;
  void on_device_event(const Event& event) override;
  void on_tick(Timestamp tick_time) override;

  // Blocks until everything queued so far has reached the target. Call from
  // the thread that feeds the sink (or after the sampler stopped).
  void drain();

  [[nodiscard]] std::uint64_t dropped_ticks() const;
  // The target's first exception, rethrown here (by drain() too): a failing
  // subscriber fails the run instead of being forgotten.
  void rethrow_failure() const;

 private:
  struct Processes {
    std::vector<GpuProcess> processes;
    Timestamp seen;
  };
  struct Lost {
    int device_index = 0;
    Timestamp when;
  };
  struct Tick {
    Timestamp time;
  };
  using Message = std::variant<DeviceSample, HostSample, Processes, Lost, Event, Tick>;

  void push(Message message);
  void deliver(const Message& message);
  void run();

  SampleSink& target_;
  const std::size_t max_queued_ticks_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;     // the worker: messages or stopping
  std::condition_variable drained_;  // drain(): the queue emptied
  std::deque<Message> queue_;
  std::vector<Message> open_tick_;  // the producer's messages of the tick in progress (producer only)
  std::size_t queued_ticks_ = 0;
  bool busy_ = false;  // the worker is delivering a batch
  bool stopping_ = false;
  std::uint64_t dropped_ticks_ = 0;
  std::exception_ptr failure_;
  std::thread worker_;
};

}  // namespace gpuwatch
