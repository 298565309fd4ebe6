#include "http/stream_pump.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <string>
#include <thread>

namespace gpuwatch::http_module {

namespace {

// libmicrohttpd asks for a piece of the body at most this large at a time.
constexpr std::size_t kBlockBytes = 32 * 1024;
// Bytes already sent are cut from the buffer's front past this much.
constexpr std::size_t kCompactBytes = 64 * 1024;

}  // namespace

// Shared by the pumping thread, the pump's list and the response (through a
// heap-held pointer that gone() frees).
struct StreamPump::Pumped {
  MHD_Connection* connection = nullptr;
  StreamSource source{};
  std::size_t buffer_bytes = 0;
  std::chrono::seconds write_deadline{};

  std::mutex mutex;
  std::condition_variable space;  // the client took bytes, or it is over
  std::string pending;            // bytes from `sent` on are the client's next
  std::size_t sent = 0;
  bool producer_done = false;     // the source ended: the body ends once sent
  bool client_gone = false;       // the response is freed: never touch `connection` again
  bool suspended = false;         // read() found nothing and suspended the connection
  bool stopping = false;
  std::thread thread;
  std::atomic<bool> finished = false;

  [[nodiscard]] std::size_t unsent() const { return pending.size() - sent; }
  // Under `mutex`: lets the connection go on when it waits for bytes.
  void wake_client() {
    if (suspended && !client_gone) {
      suspended = false;
      MHD_resume_connection(connection);
    }
  }
};

MHD_Response* StreamPump::open(MHD_Connection* connection, StreamSource source) {
  auto p = std::make_shared<Pumped>();
  p->connection = connection;
  p->source = source;
  p->buffer_bytes = buffer_bytes_;
  p->write_deadline = write_deadline_;
  std::lock_guard lock(mutex_);
  reap();
  if (stopping_ || live_.size() >= max_streams_) {
    source.release(source.stream);
    return nullptr;
  }
  auto* held = new std::shared_ptr<Pumped>(p);  // the response's share, freed by gone()
  MHD_Response* response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, kBlockBytes, &StreamPump::read, held,
                                                             &StreamPump::gone);
  if (response == nullptr) {
    delete held;
    source.release(source.stream);
    return nullptr;
  }
  p->thread = std::thread([p] { pump(p); });
  ::pthread_setname_np(p->thread.native_handle(), "gw-http-stream");
  live_.push_back(std::move(p));
  return response;
}

void StreamPump::pump(const std::shared_ptr<Pumped>& p) noexcept {
  while (true) {
    {
      std::lock_guard lock(p->mutex);
      if (p->stopping || p->client_gone) break;
    }
    if (p->source.next(p->source.stream, &StreamPump::write, p.get()) == 0) break;
  }
  p->source.release(p->source.stream);
  std::lock_guard lock(p->mutex);
  p->producer_done = true;
  p->wake_client();
  p->finished = true;
}

int StreamPump::write(void* sink, const char* data, std::size_t size) noexcept {
  auto* p = static_cast<Pumped*>(sink);
  std::unique_lock lock(p->mutex);
  // One piece larger than the buffer still goes, once the buffer is empty.
  const bool room = p->space.wait_for(lock, p->write_deadline, [&] {
    return p->client_gone || p->stopping || p->unsent() == 0 || p->unsent() + size <= p->buffer_bytes;
  });
  if (!room || p->client_gone || p->stopping) return 0;  // too slow, gone, or the server stops
  try {
    p->pending.append(data, size);
  } catch (...) {
    return 0;
  }
  p->wake_client();
  return 1;
}

ssize_t StreamPump::read(void* cls, std::uint64_t, char* buffer, std::size_t max) noexcept {
  Pumped& p = **static_cast<std::shared_ptr<Pumped>*>(cls);
  std::lock_guard lock(p.mutex);
  const std::size_t n = std::min(max, p.unsent());
  if (n > 0) {
    std::memcpy(buffer, p.pending.data() + p.sent, n);
    p.sent += n;
    if (p.sent == p.pending.size()) {
      p.pending.clear();
      p.sent = 0;
    } else if (p.sent > kCompactBytes) {
      p.pending.erase(0, p.sent);
      p.sent = 0;
    }
    p.space.notify_all();
    return static_cast<ssize_t>(n);
  }
  if (p.producer_done) return MHD_CONTENT_READER_END_OF_STREAM;
  // Nothing yet: the connection sleeps until write() or the end wakes it
  // (returning 0 without suspending would make libmicrohttpd spin).
  p.suspended = true;
  MHD_suspend_connection(p.connection);
  return 0;
}

void StreamPump::gone(void* cls) noexcept {
  auto* held = static_cast<std::shared_ptr<Pumped>*>(cls);
  {
    std::lock_guard lock((*held)->mutex);
    (*held)->client_gone = true;
    (*held)->space.notify_all();
  }
  delete held;
}

void StreamPump::stop() {
  std::list<std::shared_ptr<Pumped>> ending;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    ending.swap(live_);
  }
  for (const auto& p : ending) {
    std::lock_guard lock(p->mutex);
    p->stopping = true;
    p->space.notify_all();
  }
  for (const auto& p : ending) {
    if (p->thread.joinable()) p->thread.join();
  }
}

void StreamPump::reap() {
  for (auto it = live_.begin(); it != live_.end();) {
    if ((*it)->finished) {
      (*it)->thread.join();
      it = live_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace gpuwatch::http_module
