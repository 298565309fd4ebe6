#include "annotate/output_tee.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <array>
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
// After the command exited, output that keeps coming for longer than this
// without a pause belongs to something that outlived it.
constexpr int kQuietMs = 200;

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Passes bytes on; a reader that went away (EPIPE, a closed terminal) loses
// them, and the command is never stopped by it.
void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      poll(&p, 1, 100);
      continue;
    }
    if (n <= 0) return;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
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
  bool stopping = false;
  while (streams[0].open || streams[1].open) {
    std::array<pollfd, 3> fds{{{streams[0].open ? streams[0].read_fd : -1, POLLIN, 0},
                               {streams[1].open ? streams[1].read_fd : -1, POLLIN, 0},
                               {stopping ? -1 : stop_pipe_[0], POLLIN, 0}}};
    const int ready = poll(fds.data(), fds.size(), stopping ? kQuietMs : -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;  // quiet since the command exited
    if (fds[2].revents != 0) stopping = true;
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
  write_all(s.forward_fd, chunk.data(), chunk.size());
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
  return true;
}

void OutputTee::scan(std::string_view line) {
  const Timestamp seen = now();
  for (const OutputPattern& p : patterns_) {
    for (const Annotation& a : p.match(line)) on_annotation_(a, seen);
  }
}

}  // namespace gpuwatch
