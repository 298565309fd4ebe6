#include "live/queued_sink.h"

#include <utility>

namespace gpuwatch {

QueuedSink::QueuedSink(SampleSink& target, std::size_t max_queued_ticks)
    : target_(target), max_queued_ticks_(max_queued_ticks == 0 ? 1 : max_queued_ticks) {
  worker_ = std::thread([this] { run(); });
}

QueuedSink::~QueuedSink() {
  {
    std::lock_guard lock(mutex_);
    // A tick the sampler did not close (stopped mid-tick) still goes out.
    for (Message& m : open_tick_) queue_.push_back(std::move(m));
    open_tick_.clear();
    stopping_ = true;
  }
  wake_.notify_one();
  worker_.join();
}

void QueuedSink::on_device_sample(const DeviceSample& sample) { open_tick_.emplace_back(sample); }
void QueuedSink::on_host_sample(const HostSample& sample) { open_tick_.emplace_back(sample); }
void QueuedSink::on_processes(const std::vector<GpuProcess>& processes, Timestamp seen) {
  open_tick_.emplace_back(Processes{processes, seen});
}
void QueuedSink::on_device_lost(int device_index, Timestamp when) {
  open_tick_.emplace_back(Lost{device_index, when});
}
void QueuedSink::on_device_event(const Event& event) { open_tick_.emplace_back(event); }

void QueuedSink::on_tick(Timestamp tick_time) {
  open_tick_.emplace_back(Tick{tick_time});
  {
    std::lock_guard lock(mutex_);
    if (queued_ticks_ >= max_queued_ticks_) {
      ++dropped_ticks_;
    } else {
      for (Message& m : open_tick_) queue_.push_back(std::move(m));
      ++queued_ticks_;
    }
  }
  open_tick_.clear();
  wake_.notify_one();
}

void QueuedSink::drain() {
  {
    std::unique_lock lock(mutex_);
    drained_.wait(lock, [this] { return (queue_.empty() && !busy_) || failure_; });
  }
  rethrow_failure();
}

std::uint64_t QueuedSink::dropped_ticks() const {
  std::lock_guard lock(mutex_);
  return dropped_ticks_;
}

void QueuedSink::rethrow_failure() const {
  std::exception_ptr failure;
  {
    std::lock_guard lock(mutex_);
    failure = failure_;
  }
  if (failure) std::rethrow_exception(failure);
}

void QueuedSink::deliver(const Message& message) {
  struct Visitor {
    SampleSink& target;
    void operator()(const DeviceSample& s) const { target.on_device_sample(s); }
    void operator()(const HostSample& s) const { target.on_host_sample(s); }
    void operator()(const Processes& p) const { target.on_processes(p.processes, p.seen); }
    void operator()(const Lost& l) const { target.on_device_lost(l.device_index, l.when); }
    void operator()(const Event& e) const { target.on_device_event(e); }
    void operator()(const Tick& t) const { target.on_tick(t.time); }
  };
  std::visit(Visitor{target_}, message);
}

void QueuedSink::run() {
  std::deque<Message> batch;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return !queue_.empty() || stopping_; });
    if (queue_.empty() && stopping_) break;
    batch.swap(queue_);
    queued_ticks_ = 0;
    busy_ = true;
    lock.unlock();
    // After a failure the rest is dropped: the target is in an unknown state.
    if (!failure_) {
      try {
        for (const Message& m : batch) deliver(m);
      } catch (...) {
        lock.lock();
        failure_ = std::current_exception();
        lock.unlock();
      }
    }
    batch.clear();
    lock.lock();
    busy_ = false;
    if (queue_.empty()) drained_.notify_all();
  }
  busy_ = false;
  drained_.notify_all();
}

}  // namespace gpuwatch
