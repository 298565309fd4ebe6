// A value read on a thread of its own every period, for readers that must
// never wait on the read: top's screen and the exporter's scrapes show the
// recording run, and a slow read of its store (a long run, a busy disk)
// holds up neither them nor the sampling.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace gpuwatch {

template <class T>
class PeriodicRead {
 public:
  using Read = std::function<std::optional<T>()>;

  struct Latest {
    std::optional<T> value;
    std::string error;  // what the last read threw, else empty
  };

  // No thread when `read` is empty. `on_thread_start` runs first on the
  // reading thread (top masks the signals its screen loop takes).
  PeriodicRead(Read read, std::chrono::milliseconds period, std::function<void()> on_thread_start = {})
      : read_(std::move(read)), period_(period) {
    if (read_) thread_ = std::thread([this, start = std::move(on_thread_start)] {
      if (start) start();
      loop();
    });
  }
  ~PeriodicRead() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  PeriodicRead(const PeriodicRead&) = delete;
  PeriodicRead& operator=(const PeriodicRead&) = delete;

  [[nodiscard]] Latest latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      lock.unlock();
      Latest next;
      try {
        next.value = read_();
      } catch (const std::exception& e) {
        next.error = e.what();
      }
      lock.lock();
      latest_ = std::move(next);
      wake_.wait_for(lock, period_, [this] { return stop_; });
    }
  }

  Read read_;
  std::chrono::milliseconds period_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  Latest latest_;
  std::thread thread_;
};

}  // namespace gpuwatch
