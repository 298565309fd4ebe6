#include "annotate/output_forwarder.h"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <ctime>
#include <utility>

namespace gpuwatch {

namespace {

// Once the recorder says the command exited, a pause this long means its
// output is drained; output that keeps coming beyond the grace belongs to
// something that outlived it.
constexpr int kQuietMs = 200;
constexpr std::int64_t kGraceMs = 1000;
constexpr std::size_t kChunkBytes = 16384;

std::int64_t monotonic_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000;
}

void close_range_or_loop(unsigned first, unsigned last) {
  if (first > last) return;
#ifdef SYS_close_range
  if (syscall(SYS_close_range, first, last, 0U) == 0) return;
#endif
  // Kernels before 5.9: one by one, up to a limit no recorder reaches.
  for (unsigned fd = first; fd <= last && fd < 65536; ++fd) close(static_cast<int>(fd));
}

// Every descriptor but 0-2 and those in `keep`: the forwarder must not hold
// the recorder's store, sockets or the command's write ends (then the pipes
// would never close).
void close_all_but(std::array<int, 7> keep) {
  for (std::size_t i = 1; i < keep.size(); ++i) {  // insertion sort: no library calls here
    for (std::size_t j = i; j > 0 && keep[j - 1] > keep[j]; --j) std::swap(keep[j - 1], keep[j]);
  }
  unsigned next = 3;
  for (const int fd : keep) {
    if (fd < static_cast<int>(next)) continue;
    close_range_or_loop(next, static_cast<unsigned>(fd) - 1);
    next = static_cast<unsigned>(fd) + 1;
  }
  close_range_or_loop(next, ~0U);
}

// Passes bytes on, waiting for a slow reader as the command itself would.
// Returns false when the reader is gone (EPIPE); other failures (a closed
// terminal: EIO) lose the bytes, as the command's own writes would have.
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

struct Lane {
  int in;
  int out;
  int copy;
  bool open = true;
  bool copy_broken = false;  // a copy was dropped: the next one starts a new line
};

// The copy never waits: a recorder that cannot keep up loses annotations,
// never the job's time. After a drop, a newline first, so that the torn line
// is scanned on its own rather than glued to the next.
void copy_to_recorder(Lane& lane, const char* data, std::size_t size) {
  if (lane.copy < 0) return;
  if (lane.copy_broken) {
    const ssize_t n = write(lane.copy, "\n", 1);
    if (n < 0 && errno == EPIPE) lane.copy = -1;
    if (n != 1) return;
    lane.copy_broken = false;
  }
  const ssize_t n = write(lane.copy, data, size);
  if (n < 0 && errno == EPIPE) {
    close(lane.copy);  // the recorder is gone; the job goes on
    lane.copy = -1;
  } else if (n != static_cast<ssize_t>(size)) {
    lane.copy_broken = true;
  }
}

void pass_on(Lane& lane) {
  std::array<char, kChunkBytes> buffer;
  const ssize_t n = read(lane.in, buffer.data(), buffer.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    lane.open = false;
    return;
  }
  const auto size = static_cast<std::size_t>(n);
  if (!write_all(lane.out, buffer.data(), size)) {
    // Nobody reads what the command writes there any more: neither do we,
    // so its next write gets SIGPIPE (or EPIPE), as without gpuwatch.
    close(lane.in);
    lane.open = false;
  }
  copy_to_recorder(lane, buffer.data(), size);
}

[[noreturn]] void forward(const ForwarderFds& fds) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) sigaction(signal, &ignore, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  close_all_but({fds.command_stdout, fds.command_stderr, fds.forward_stdout, fds.forward_stderr, fds.copy_stdout,
                 fds.copy_stderr, fds.finish});

  std::array<Lane, 2> lanes{{{fds.command_stdout, fds.forward_stdout, fds.copy_stdout},
                             {fds.command_stderr, fds.forward_stderr, fds.copy_stderr}}};
  int finish = fds.finish;
  std::int64_t give_up_ms = -1;  // set once the recorder says the command exited
  while (lanes[0].open || lanes[1].open) {
    int timeout_ms = -1;
    if (give_up_ms >= 0) {
      const std::int64_t left = give_up_ms - monotonic_ms();
      if (left <= 0) break;  // a leftover process still writes: stop listening
      timeout_ms = static_cast<int>(left < kQuietMs ? left : kQuietMs);
    }
    std::array<pollfd, 3> polled{{{lanes[0].open ? lanes[0].in : -1, POLLIN, 0},
                                  {lanes[1].open ? lanes[1].in : -1, POLLIN, 0},
                                  {finish, POLLIN, 0}}};
    const int ready = poll(polled.data(), polled.size(), timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || (ready == 0 && timeout_ms == kQuietMs)) break;  // drained: quiet since the command exited
    if (polled[2].revents != 0) {
      char byte = 0;
      if (read(finish, &byte, 1) == 1) give_up_ms = monotonic_ms() + kGraceMs;
      // End of file without the byte: the recorder died. Its command goes on,
      // and so do we, until the command's pipes close.
      close(finish);
      finish = -1;
    }
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      if (polled[i].revents != 0 && lanes[i].open) pass_on(lanes[i]);
    }
  }
  _exit(0);
}

}  // namespace

pid_t start_output_forwarder(const ForwarderFds& fds) {
  const pid_t pid = fork();
  if (pid == 0) forward(fds);
  return pid;
}

}  // namespace gpuwatch
