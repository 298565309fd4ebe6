// The HTTP module's streamed answers (module-internal): each stream (a live
// run's server-sent events) is pumped by a thread of its own into a bounded
// buffer, which libmicrohttpd drains as the client reads. A stream never
// holds a worker, so streams cannot starve the API; the buffer's bound makes
// a client that stops reading cost at most that much, and then its stream.
#pragma once

#include <microhttpd.h>

#include <chrono>
#include <list>
#include <memory>
#include <mutex>

#include "http/http_module_api.h"

namespace gpuwatch::http_module {

struct StreamSource {
  int (*next)(void* stream, GpuwatchHttpWrite write, void* sink);
  void* stream;
  void (*release)(void* stream);
};

class StreamPump {
 public:
  StreamPump(int max_streams, std::size_t buffer_bytes, std::chrono::seconds write_deadline)
      : max_streams_(static_cast<std::size_t>(max_streams)), buffer_bytes_(buffer_bytes), write_deadline_(write_deadline) {}
  ~StreamPump() { stop(); }
  StreamPump(const StreamPump&) = delete;
  StreamPump& operator=(const StreamPump&) = delete;

  // The response that sends `source` to `connection`, its thread started;
  // null when every slot is taken or the pump is stopping (the source is then
  // released). The connection must stay suspendable: the response suspends it
  // while nothing is there to send.
  MHD_Response* open(MHD_Connection* connection, StreamSource source);
  // Ends every stream (its client gets the end of the body) and joins their
  // threads. Thread-safe; later open() calls give null.
  void stop();

 private:
  struct Pumped;
  static ssize_t read(void* cls, std::uint64_t position, char* buffer, std::size_t max) noexcept;
  static void gone(void* cls) noexcept;
  static int write(void* sink, const char* data, std::size_t size) noexcept;
  static void pump(const std::shared_ptr<Pumped>& p) noexcept;
  void reap();  // under mutex_: joins the threads that ended

  std::size_t max_streams_;
  std::size_t buffer_bytes_;
  std::chrono::seconds write_deadline_;
  std::mutex mutex_;
  std::list<std::shared_ptr<Pumped>> live_;
  bool stopping_ = false;
};

}  // namespace gpuwatch::http_module
