// The HTTP module's door (module-internal, not part of the layer): it owns
// the listening socket, accepts every connection itself and holds each one
// to a deadline, so that libmicrohttpd, which parses and answers, never sees
// more clients than the limits allow.
//
// Why not libmicrohttpd's own listening socket: at its connection limit it
// stops accepting, and a scrape then waits in the kernel's queue behind
// silent clients; and its timeout is one of inactivity, which a client that
// sends a byte a second never reaches. Here a client past the cap gets a 503
// at once (after the oldest connection still sending its request, if any,
// was closed to make room), and a request has a deadline as a whole.
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpuwatch::http_module {

using Clock = std::chrono::steady_clock;

struct GateLimits {
  int max_connections = 64;
  std::chrono::seconds request_deadline{10};
  std::chrono::seconds write_deadline{10};
};

class ConnectionGate {
 public:
  // Hands an accepted socket on; false when it was refused (and closed).
  using Admit = std::function<bool(int fd, const sockaddr* address, socklen_t length)>;

  // Binds `host`:`port` (0: any free port) and listens. On failure
  // listening() is false and error() says why.
  ConnectionGate(const char* host, int port, const GateLimits& limits);
  ~ConnectionGate();
  ConnectionGate(const ConnectionGate&) = delete;
  ConnectionGate& operator=(const ConnectionGate&) = delete;

  [[nodiscard]] bool listening() const { return listen_fd_ >= 0; }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] int port() const { return port_; }

  // Accepts until stop(), calling `admit` for each connection let in.
  void run(const Admit& admit);
  // Thread-safe; run() returns soon after (at once when it has not begun).
  void stop();

  // What the server tells the gate of each admitted connection, by socket,
  // from any thread. started: the server has it, the request deadline runs.
  // handling: a whole request came, no deadline while it is answered.
  // writing: the answer is being sent, the write deadline runs. streaming:
  // a stream's pieces are being sent (each has its own deadline). idle: the
  // answer went, the next request's deadline runs. closed: gone (called
  // before the socket is closed, so the gate never touches a reused one).
  void started(int fd);
  void handling(int fd);
  void writing(int fd);
  void streaming(int fd);
  void idle(int fd);
  void closed(int fd);

  // Connections let in and not yet closed (for tests and the docs' figures).
  [[nodiscard]] std::size_t open_connections() const;

 private:
  enum class Phase { Accepted, Reading, Handling, Writing, Streaming };
  struct Tracked {
    Phase phase = Phase::Accepted;
    Clock::time_point since;  // of the phase
    bool evicted = false;     // shut down by the gate, not yet closed
  };
  struct Closing {
    int fd;
    Clock::time_point until;
  };

  bool bind_and_listen(const char* host, int port);
  void accept_all(const Admit& admit);
  bool make_room(Clock::time_point now);
  void refuse(int fd);
  void sweep(Clock::time_point now);
  void drain_closing(const std::vector<int>& readable, Clock::time_point now);
  int next_wake_ms(Clock::time_point now);
  [[nodiscard]] Clock::time_point deadline_of(const Tracked& t) const;
  void set_phase(int fd, Phase phase);

  GateLimits limits_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;
  int port_ = 0;
  std::string error_;
  std::atomic<bool> stopping_ = false;
  mutable std::mutex mutex_;
  std::unordered_map<int, Tracked> tracked_;
  Clock::time_point planned_wake_ = Clock::time_point::max();  // when run() wakes next, unless woken
  std::vector<Closing> closing_;  // refused with 503: read until the client closes
};

}  // namespace gpuwatch::http_module
