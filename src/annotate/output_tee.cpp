#include "annotate/output_tee.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "annotate/output_forwarder.h"

namespace gpuwatch {

namespace {

// Line buffers stop growing here: a line longer than this is scanned by its
// start only anyway, and a command printing without newlines must not make
// gpuwatch grow.
constexpr std::size_t kMaxHeldLineBytes = 64 * 1024;
// The copies are dropped, not waited for, when their pipe is full: room for
// a few seconds of a chatty command while the recorder is busy.
constexpr int kCopyPipeBytes = 1 << 20;
// After the command exited, the forwarder gives up within its grace (1 s);
// past this, a forwarder stuck on a terminal nobody reads is left to finish
// on its own rather than holding the recorder.
constexpr std::chrono::milliseconds kScanGrace{3000};

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

OutputTee::OutputTee(std::vector<OutputPattern> patterns, Handler on_annotation)
    : patterns_(std::move(patterns)), on_annotation_(std::move(on_annotation)) {
  const std::array<int*, 6> pipes{command_stdout_, command_stderr_, copy_stdout_, copy_stderr_, finish_, stop_scanning_};
  auto fail = [&](const char* what) {
    const std::string why = std::strerror(errno);
    for (int* p : pipes) {
      close_fd(p[0]);
      close_fd(p[1]);
    }
    throw std::runtime_error(fmt::format("cannot {} for the command's output: {}", what, why));
  };
  for (int* p : pipes) {
    // The finish channel is a socket so that telling a forwarder already
    // gone (the command's pipes closed) is EPIPE, not SIGPIPE: send() takes
    // MSG_NOSIGNAL, write() on a pipe has no such flag.
    const bool made = p == finish_ ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) == 0 : pipe2(p, O_CLOEXEC) == 0;
    if (!made) fail("create pipes");
  }
  for (int* copy : {copy_stdout_, copy_stderr_}) {
    fcntl(copy[1], F_SETFL, O_NONBLOCK);
    fcntl(copy[1], F_SETPIPE_SZ, kCopyPipeBytes);  // best effort: the default 64 KiB works too
  }
  forwarder_ = start_output_forwarder({command_stdout_[0], command_stderr_[0], STDOUT_FILENO, STDERR_FILENO,
                                       copy_stdout_[1], copy_stderr_[1], finish_[0]});
  if (forwarder_ < 0) fail("start the process that passes on");
  for (int* fd : {&command_stdout_[0], &command_stderr_[0], &copy_stdout_[1], &copy_stderr_[1], &finish_[0]}) {
    close_fd(*fd);  // the forwarder's ends
  }
}

OutputTee::~OutputTee() {
  finish();
  for (int* p : {command_stdout_, command_stderr_, copy_stdout_, copy_stderr_, finish_, stop_scanning_}) {
    close_fd(p[0]);
    close_fd(p[1]);
  }
}

void OutputTee::start() {
  close_fd(command_stdout_[1]);
  close_fd(command_stderr_[1]);
  epoch_ends_ = EpochEnds(now());
  thread_ = std::thread([this] { scan_copies(); });
}

void OutputTee::finish() {
  // Never started: the forwarder sees its pipes close.
  close_fd(command_stdout_[1]);
  close_fd(command_stderr_[1]);
  const char byte = 'x';
  if (finish_[1] >= 0 && send(finish_[1], &byte, 1, MSG_NOSIGNAL) < 0) {
    // The forwarder is gone already: nothing to tell.
  }
  if (stop_scanning_[1] >= 0 && write(stop_scanning_[1], &byte, 1) < 0) {
    // Our own pipe, read by our thread until the destructor closes it: cannot fail.
  }
  close_fd(finish_[1]);
  close_fd(stop_scanning_[1]);
  if (thread_.joinable()) thread_.join();
  reap_forwarder();
}

void OutputTee::reap_forwarder() {
  if (forwarder_ < 0) return;
  // It exits once its pipes close, which the thread above waited for; only a
  // forwarder blocked on a stuck terminal is left behind.
  for (int waited_ms = 0; waited_ms < 1000; waited_ms += 10) {
    const pid_t done = waitpid(forwarder_, nullptr, WNOHANG);
    if (done == forwarder_ || (done < 0 && errno != EINTR)) break;
    usleep(10'000);
  }
  forwarder_ = -1;
}

void OutputTee::scan_copies() {
  pthread_setname_np(pthread_self(), "gw-output");
  std::array<Stream, 2> streams{{{copy_stdout_[0], {}, true}, {copy_stderr_[0], {}, true}}};
  std::optional<std::chrono::steady_clock::time_point> give_up;  // set once the command exited
  while (streams[0].open || streams[1].open) {
    int timeout_ms = -1;
    if (give_up) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*give_up - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      timeout_ms = static_cast<int>(left.count());
    }
    std::array<pollfd, 3> fds{{{streams[0].open ? streams[0].read_fd : -1, POLLIN, 0},
                               {streams[1].open ? streams[1].read_fd : -1, POLLIN, 0},
                               {give_up ? -1 : stop_scanning_[0], POLLIN, 0}}};
    const int ready = poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    if (fds[2].revents != 0) give_up = std::chrono::steady_clock::now() + kScanGrace;
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
    for (Annotation& a : p.match(line)) {
      for (const auto& [annotation, at] : epoch_ends_.on_annotation(std::move(a), seen)) on_annotation_(annotation, at);
    }
  }
}

}  // namespace gpuwatch
