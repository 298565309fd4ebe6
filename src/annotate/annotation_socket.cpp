#include "annotate/annotation_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <variant>

#include <fmt/format.h>

#include "annotate/socket_dir.h"

namespace gpuwatch {

namespace {

std::runtime_error system_error(std::string_view what) {
  return std::runtime_error(fmt::format("annotation socket: {}: {}", what, std::strerror(errno)));
}

OwnedSocketDir make_private_dir(const SocketPlace& place) {
  std::string base = "/tmp";
  if (!place.runtime_dir.empty() && access(place.runtime_dir.c_str(), W_OK) == 0) {
    base = place.runtime_dir;
  } else if (!place.temp_dir.empty() && access(place.temp_dir.c_str(), W_OK) == 0) {
    base = place.temp_dir;
  }
  const std::filesystem::path& procfs_root = place.procfs_root;
  const SocketDirOwner me = SocketDirOwner::current(procfs_root);
  // What SIGKILLed recorders left behind, provably dead ones only.
  remove_stale_socket_dirs(base, me, procfs_root);
  try {
    return create_socket_dir(base, me);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("annotation socket: {}", e.what()));
  }
}

}  // namespace

AnnotationSocket::AnnotationSocket(Handler on_annotation, Answerer answer_request, const SocketPlace& place)
    : on_annotation_(std::move(on_annotation)), answer_request_(std::move(answer_request)) {
  OwnedSocketDir made = make_private_dir(place);
  dir_ = std::move(made.path);
  dir_lock_ = std::move(made.owner_lock);
  path_ = dir_ / kSocketFileName;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string path = path_.string();
  if (path.size() >= sizeof address.sun_path) {
    remove_socket_dir(dir_);
    throw std::runtime_error(fmt::format("annotation socket: the path {} is too long for a Unix socket", path));
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  socket_fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (socket_fd_ < 0 || bind(socket_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      pipe2(stop_pipe_, O_CLOEXEC) != 0) {
    const auto error = system_error("cannot bind " + path);
    if (socket_fd_ >= 0) close(socket_fd_);
    remove_socket_dir(dir_);
    throw error;
  }
  // Room for bursts (a log per step at thousands of steps a second) while
  // the reader thread waits for its turn on a busy host.
  const int buffer_bytes = 4 << 20;
  setsockopt(socket_fd_, SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof buffer_bytes);
  thread_ = std::thread([this] { read_loop(); });
}

void AnnotationSocket::stop() {
  if (!thread_.joinable()) return;
  const char stop = 'x';
  if (write(stop_pipe_[1], &stop, 1) < 0) {
    // Cannot happen with an open pipe; the thread would then never stop.
  }
  thread_.join();
}

AnnotationSocket::~AnnotationSocket() {
  stop();
  close(socket_fd_);
  close(stop_pipe_[0]);
  close(stop_pipe_[1]);
  remove_socket_dir(dir_);
}

std::string AnnotationSocket::first_rejection() const {
  std::lock_guard lock(rejection_mutex_);
  return first_rejection_;
}

void AnnotationSocket::read_loop() {
  pthread_setname_np(pthread_self(), "gw-annotate");
  // One byte more than the largest datagram taken: a longer one shows as
  // truncated (MSG_TRUNC gives its real size) and is rejected whole.
  std::array<char, kMaxDatagramBytes + 1> buffer{};
  std::string why;
  for (;;) {
    std::array<pollfd, 2> fds{{{socket_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}}};
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    // Drain what is queued before looking at the stop request: annotations
    // sent just before the command exited still count.
    for (;;) {
      sockaddr_un from{};
      socklen_t from_size = sizeof from;
      const ssize_t n = recvfrom(socket_fd_, buffer.data(), buffer.size(), MSG_TRUNC,
                                 reinterpret_cast<sockaddr*>(&from), &from_size);
      if (n < 0) break;  // EAGAIN: the queue is empty
      const auto size = static_cast<std::size_t>(n);
      bool handled = false;
      if (size > kMaxDatagramBytes) {
        why = fmt::format("a datagram of {} bytes (at most {})", size, kMaxDatagramBytes);
      } else {
        handled = handle(std::string_view(buffer.data(), size), from, from_size, why);
      }
      if (!handled && rejected_.fetch_add(1) == 0) {
        std::lock_guard lock(rejection_mutex_);
        first_rejection_ = why;
      }
    }
    if (fds[1].revents != 0) return;
  }
}

bool AnnotationSocket::handle(std::string_view text, const sockaddr_un& from, socklen_t from_size,
                              std::string& why) {
  const Timestamp received = now();
  std::optional<SocketMessage> message = parse_socket_message(text, why);
  if (!message) return false;
  if (const auto* a = std::get_if<Annotation>(&*message)) {
    on_annotation_(*a, received);
    return true;
  }
  if (!answer_request_) {
    why = "a metrics request, which this recorder does not answer";
    return false;
  }
  // An unbound sender has no address to answer (only the family is given).
  if (from_size <= static_cast<socklen_t>(sizeof(sa_family_t)) || from.sun_family != AF_UNIX) {
    why = "a metrics request from an unbound socket (nowhere to answer)";
    return false;
  }
  const std::string answer = answer_request_(std::get<MetricsRequest>(*message));
  // Never waits: a requester whose queue is full (or that is gone) misses the answer.
  if (sendto(socket_fd_, answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL,
             reinterpret_cast<const sockaddr*>(&from), from_size) < 0) {
    // The requester times out and answers itself with {}.
  }
  answered_.fetch_add(1);
  return true;
}

}  // namespace gpuwatch
