#include "http/connection_gate.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <thread>

namespace gpuwatch::http_module {

namespace {

// The kernel's queue of connections not yet accepted (it caps this at
// net.core.somaxconn, 4096 on current kernels): a burst of clients waits
// there for the gate rather than being refused by the kernel.
constexpr int kListenBacklog = 1024;
// A refused client is given this long to read its 503 and close; the gate
// keeps at most this many such sockets, and closes the rest at once.
constexpr std::chrono::seconds kClosingGrace{1};
constexpr std::size_t kMaxClosing = 256;
// Accepted but never handed back by the server (it failed to take the
// socket): forgotten after this, without touching the number again.
constexpr std::chrono::seconds kAcceptedGrace{2};
// How long a connection is left to send its request before it may be closed
// to make room for another.
constexpr std::chrono::milliseconds kMinIdle{500};

constexpr std::string_view kBusyAnswer =
    "HTTP/1.1 503 Service Unavailable\r\n"
    "Content-Type: application/json\r\n"
    "Retry-After: 2\r\n"
    "Connection: close\r\n"
    "Content-Length: 93\r\n"
    "\r\n"
    R"({"schema_version": 1, "error": "too many connections open; try again in a couple of seconds"})";
static_assert(kBusyAnswer.size() - kBusyAnswer.find("\r\n\r\n") - 4 == 93);

int wait_ms(Clock::duration d) {
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(d).count();
  return static_cast<int>(std::clamp<long long>(ms, 1, 1000));
}

// Descriptors the process holds besides connections: stores, drivers, the
// live streams' store connections, libmicrohttpd's epoll and eventfd.
constexpr std::size_t kOtherDescriptors = 256;

// Descriptors for every connection allowed, the sockets being refused and
// the rest of the process (stores, drivers): the usual soft limit of 1,024
// is raised towards the hard one. Where the hard one is lower, fewer
// connections are let in rather than accept() failing with EMFILE.
int connections_within_descriptors(int wanted) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return wanted;
  const auto needed = static_cast<rlim_t>(wanted) + kMaxClosing + kOtherDescriptors;
  if (limit.rlim_cur < needed) {
    limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? needed : std::min(needed, limit.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &limit);
    ::getrlimit(RLIMIT_NOFILE, &limit);
  }
  if (limit.rlim_cur >= needed) return wanted;
  const auto room = static_cast<long long>(limit.rlim_cur) - static_cast<long long>(kMaxClosing + kOtherDescriptors);
  return static_cast<int>(std::clamp<long long>(room, 16, wanted));
}

}  // namespace

ConnectionGate::ConnectionGate(const char* host, int port, const GateLimits& limits) : limits_(limits) {
  limits_.max_connections = connections_within_descriptors(limits.max_connections);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    error_ = std::string("eventfd: ") + std::strerror(errno);
    return;
  }
  if (!bind_and_listen(host, port) && error_.empty()) {
    error_ = "the port is taken, or the address is not one of this machine's";
  }
}

ConnectionGate::~ConnectionGate() {
  for (const Closing& c : closing_) ::close(c.fd);
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

bool ConnectionGate::bind_and_listen(const char* host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host, service.c_str(), &hints, &found); rc != 0) {
    error_ = std::string("cannot resolve the address: ") + ::gai_strerror(rc);
    return false;
  }
  for (const addrinfo* a = found; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    // SO_REUSEADDR alone: a restart binds while old connections linger in
    // TIME_WAIT, but a second server cannot take the port (SO_REUSEPORT would
    // let it, and half the requests).
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, kListenBacklog) == 0) {
      listen_fd_ = fd;
    } else {
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0) return false;
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &length);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port
                                             : reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
  return true;
}

void ConnectionGate::stop() {
  stopping_ = true;
  const std::uint64_t one = 1;
  if (wake_fd_ >= 0) (void)!::write(wake_fd_, &one, sizeof(one));
}

void ConnectionGate::run(const Admit& admit) {
  std::vector<pollfd> fds;
  std::vector<int> readable;
  while (!stopping_) {
    fds.assign({{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}});
    for (const Closing& c : closing_) fds.push_back({c.fd, POLLIN, 0});
    const int ready = ::poll(fds.data(), fds.size(), next_wake_ms(Clock::now()));
    if (ready < 0 && errno != EINTR) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // out of memory for poll: try again
      continue;
    }
    if (fds[1].revents != 0) {
      std::uint64_t count = 0;
      (void)!::read(wake_fd_, &count, sizeof(count));
    }
    const Clock::time_point now = Clock::now();
    readable.clear();
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents != 0) readable.push_back(fds[i].fd);
    }
    drain_closing(readable, now);
    sweep(now);
    if (ready > 0 && fds[0].revents != 0) accept_all(admit);
  }
}

void ConnectionGate::accept_all(const Admit& admit) {
  while (!stopping_) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // EMFILE and the like: the queue keeps the client, and the next
      // sweep or close frees a descriptor; do not spin on it meanwhile.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      return;
    }
    const int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    const Clock::time_point now = Clock::now();
    {
      std::lock_guard lock(mutex_);
      if (!make_room(now)) {
        refuse(fd);
        continue;
      }
      tracked_[fd] = Tracked{Phase::Accepted, now, false};
    }
    if (!admit(fd, reinterpret_cast<const sockaddr*>(&address), length)) {
      std::lock_guard lock(mutex_);
      tracked_.erase(fd);  // the server closed it; no other thread makes sockets here
    }
  }
}

// Under the lock: whether one more connection fits, after closing the oldest
// one still waiting for (or sending) a request when the house is full.
bool ConnectionGate::make_room(Clock::time_point now) {
  std::size_t open = 0;
  Tracked* oldest = nullptr;
  int oldest_fd = -1;
  for (auto& [fd, t] : tracked_) {
    if (t.evicted) continue;
    ++open;
    // Not sending a request, or not done sending it, for a while: oldest
    // first. A connection younger than that is never taken, so an honest
    // newcomer has the time to send its request even while a flood of new
    // connections churns through the house.
    const bool waiting = (t.phase == Phase::Reading || t.phase == Phase::Accepted) && now - t.since >= kMinIdle;
    if (waiting && (oldest == nullptr || t.since < oldest->since)) {
      oldest = &t;
      oldest_fd = fd;
    }
  }
  if (open < static_cast<std::size_t>(limits_.max_connections)) return true;
  if (oldest == nullptr) return false;
  oldest->evicted = true;
  ::shutdown(oldest_fd, SHUT_RDWR);  // the server sees the end and closes it
  return true;
}

void ConnectionGate::refuse(int fd) {
  // Whatever the client sent is read first: closing a socket with unread
  // bytes sends a reset, which may reach the client before the 503 does.
  std::array<char, 4096> discard{};
  (void)!::recv(fd, discard.data(), discard.size(), MSG_DONTWAIT);
  (void)!::send(fd, kBusyAnswer.data(), kBusyAnswer.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  ::shutdown(fd, SHUT_WR);
  if (closing_.size() >= kMaxClosing) {
    ::close(fd);
    return;
  }
  closing_.push_back({fd, Clock::now() + kClosingGrace});
}

void ConnectionGate::drain_closing(const std::vector<int>& readable, Clock::time_point now) {
  std::array<char, 4096> discard{};
  std::erase_if(closing_, [&](const Closing& c) {
    bool done = now >= c.until;
    if (!done && std::find(readable.begin(), readable.end(), c.fd) != readable.end()) {
      const ssize_t n = ::recv(c.fd, discard.data(), discard.size(), MSG_DONTWAIT);
      done = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
    }
    if (done) ::close(c.fd);
    return done;
  });
}

Clock::time_point ConnectionGate::deadline_of(const Tracked& t) const {
  switch (t.phase) {
    case Phase::Accepted: return t.since + kAcceptedGrace;
    case Phase::Reading: return t.since + limits_.request_deadline;
    case Phase::Writing: return t.since + limits_.write_deadline;
    case Phase::Handling:
    case Phase::Streaming: break;
  }
  return Clock::time_point::max();
}

// Connections past their deadline are shut down: the server sees the end of
// the stream, closes them and reports closed(). An accepted socket the
// server never reported started is forgotten, not touched.
void ConnectionGate::sweep(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  for (auto it = tracked_.begin(); it != tracked_.end();) {
    Tracked& t = it->second;
    if (t.evicted || now < deadline_of(t)) {
      ++it;
    } else if (t.phase == Phase::Accepted) {
      it = tracked_.erase(it);
    } else {
      t.evicted = true;
      ::shutdown(it->first, SHUT_RDWR);
      ++it;
    }
  }
}

int ConnectionGate::next_wake_ms(Clock::time_point now) {
  Clock::time_point next = Clock::time_point::max();
  for (const Closing& c : closing_) next = std::min(next, c.until);
  std::lock_guard lock(mutex_);
  for (const auto& [fd, t] : tracked_) {
    if (!t.evicted) next = std::min(next, deadline_of(t));
  }
  planned_wake_ = next;
  // Nothing to watch: sleep until a client or stop() comes, no idle wake-ups.
  return next == Clock::time_point::max() ? -1 : wait_ms(next - now);
}

void ConnectionGate::set_phase(int fd, Phase phase) {
  std::lock_guard lock(mutex_);
  const auto it = tracked_.find(fd);
  if (it == tracked_.end() || it->second.evicted) return;
  it->second.phase = phase;
  it->second.since = Clock::now();
  // Woken only for a deadline earlier than the one it sleeps towards: at most
  // once per sleep, not once per request.
  if (deadline_of(it->second) < planned_wake_) {
    planned_wake_ = Clock::time_point::min();
    const std::uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof(one));
  }
}

void ConnectionGate::started(int fd) { set_phase(fd, Phase::Reading); }
void ConnectionGate::handling(int fd) { set_phase(fd, Phase::Handling); }
void ConnectionGate::writing(int fd) { set_phase(fd, Phase::Writing); }
void ConnectionGate::streaming(int fd) { set_phase(fd, Phase::Streaming); }
void ConnectionGate::idle(int fd) { set_phase(fd, Phase::Reading); }

void ConnectionGate::closed(int fd) {
  std::lock_guard lock(mutex_);
  tracked_.erase(fd);
}

std::size_t ConnectionGate::open_connections() const {
  std::lock_guard lock(mutex_);
  return tracked_.size();
}

}  // namespace gpuwatch::http_module
