// GET /api/live?run=ID: a recording run's new samples as server-sent events,
// read from the store as the recorder commits them (every second), on a
// read-only connection that never blocks the recorder.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>

#include "http/http_server.h"
#include "store/store.h"

namespace gpuwatch {

// Shared by a server's streams: stop() ends them all within a poll.
class LiveStreams {
 public:
  // At most this many at once: each has a thread of its own (never one of
  // the workers that answer the API) and a connection to the store, polled
  // twice a second.
  static constexpr int kMaxStreams = 32;

  void stop();
  [[nodiscard]] bool stopping() const { return stopping_; }
  // Waits up to `period`; false once stopping.
  bool wait(std::chrono::milliseconds period);
  // A slot for one more stream, or false when all are taken.
  bool acquire();
  void release() { --active_; }

 private:
  std::atomic<int> active_ = 0;
  std::atomic<bool> stopping_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
};

// The stream of `run` (found in `store`), starting after `since_s` seconds
// of the run (default: the data there is now). Takes one of `streams`' slots.
std::unique_ptr<HttpStream> open_live_stream(LiveStreams& streams, std::unique_ptr<Store> store, RunInfo run,
                                             std::optional<double> since_s);

}  // namespace gpuwatch
