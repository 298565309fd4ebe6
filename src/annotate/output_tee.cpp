#include "annotate/output_tee.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <optional>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

// Line buffers stop growing here: a line longer than this is scanned by its
// start only anyway, and a command printing without newlines must not make
// gpuwatch grow.
constexpr std::size_t kMaxHeldLineBytes = 64 * 1024;
// After the command exited, a pause this long means its output is drained;
// output that keeps coming beyond the grace belongs to something that
// outlived it (the command's own was already in the pipe, at most 64 KiB).
constexpr int kQuietMs = 200;
constexpr std::chrono::milliseconds kGrace{1000};

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Passes bytes on. Returns false when the reader is gone (EPIPE); other
// failures (a closed terminal: EIO) lose the bytes, as the command's own
// writes would have.
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      poll(&p, 1, 100);
      continue;
    }
    if (n < 0 && errno == EPIPE) return false;
    if (n <= 0) return true;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

OutputTee::OutputTee(std::vector<OutputPattern> patterns, Handler on_annotation)
    : patterns_(std::move(patterns)), on_annotation_(std::move(on_annotation)) {
  if (pipe2(stdout_pipe_, O_CLOEXEC) != 0 || pipe2(stderr_pipe_, O_CLOEXEC) != 0 ||
      pipe2(stop_pipe_, O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    for (int* p : {stdout_pipe_, stderr_pipe_, stop_pipe_}) {
      close_fd(p[0]);
      close_fd(p[1]);
    }
    throw std::runtime_error(fmt::format("cannot create pipes for the command's output: {}", why));
  }
}

OutputTee::~OutputTee() {
  finish();
  for (int* p : {stdout_pipe_, stderr_pipe_, stop_pipe_}) {
    close_fd(p[0]);
    close_fd(p[1]);
  }
}

void OutputTee::start() {
  close_fd(stdout_pipe_[1]);
  close_fd(stderr_pipe_[1]);
  thread_ = std::thread([this] { pump(); });
}

void OutputTee::finish() {
  if (!thread_.joinable()) return;
  const char stop = 'x';
  if (write(stop_pipe_[1], &stop, 1) < 0) {
    // A pipe we own and never filled: cannot fail.
  }
  thread_.join();
}

void OutputTee::pump() {
  pthread_setname_np(pthread_self(), "gw-output");
  // Writing to a closed pipe must give EPIPE here, not kill the recorder.
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);

  std::array<Stream, 2> streams{{{stdout_pipe_[0], STDOUT_FILENO, {}, true},
                                 {stderr_pipe_[0], STDERR_FILENO, {}, true}}};
  std::optional<std::chrono::steady_clock::time_point> give_up;  // set once the command exited
  while (streams[0].open || streams[1].open) {
    int timeout_ms = -1;
    if (give_up) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*give_up - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;  // a leftover process still writes: stop listening
      timeout_ms = static_cast<int>(std::min<std::int64_t>(kQuietMs, left.count()));
    }
    std::array<pollfd, 3> fds{{{streams[0].open ? streams[0].read_fd : -1, POLLIN, 0},
                               {streams[1].open ? streams[1].read_fd : -1, POLLIN, 0},
                               {give_up ? -1 : stop_pipe_[0], POLLIN, 0}}};
    const int ready = poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || (ready == 0 && timeout_ms == kQuietMs)) break;  // drained: quiet since the command exited
    if (fds[2].revents != 0) give_up = std::chrono::steady_clock::now() + kGrace;
    for (std::size_t i = 0; i < streams.size(); ++i) {
      if (fds[i].revents != 0) streams[i].open = read_some(streams[i]);
    }
  }
  for (Stream& s : streams) {
    if (!s.partial_line.empty()) scan(s.partial_line);  // a last line without its newline
  }
}

bool OutputTee::read_some(Stream& s) {
  std::array<char, 16384> buffer;
  const ssize_t n = read(s.read_fd, buffer.data(), buffer.size());
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  const std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
  const bool reader_there = write_all(s.forward_fd, chunk.data(), chunk.size());
  // Progress bars end their lines with '\r': each redraw is a line too.
  std::size_t from = 0;
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    if (chunk[i] != '\n' && chunk[i] != '\r') continue;
    s.partial_line.append(chunk.substr(from, i - from));
    if (!s.partial_line.empty()) scan(s.partial_line);
    s.partial_line.clear();
    from = i + 1;
  }
  const std::size_t room = kMaxHeldLineBytes - std::min(kMaxHeldLineBytes, s.partial_line.size());
  s.partial_line.append(chunk.substr(from, std::min(room, chunk.size() - from)));
  if (!reader_there) {
    // Nobody reads what the command writes there any more: neither do we,
    // so its next write gets SIGPIPE (or EPIPE), as without gpuwatch.
    close_fd(s.read_fd);
    return false;
  }
  return true;
}

void OutputTee::scan(std::string_view line) {
  const Timestamp seen = now();
  for (const OutputPattern& p : patterns_) {
    for (const Annotation& a : p.match(line)) on_annotation_(a, seen);
  }
}

}  // namespace gpuwatch
