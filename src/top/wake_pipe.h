// A byte down a non-blocking pipe wakes the screen loop, which sleeps in
// poll() on the keyboard and on these pipes together: one for the sampler's
// ticks, one for stop signals (whose handler may write to it: write() is
// async-signal-safe).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <stdexcept>

#include "base/unique_fd.h"

namespace gpuwatch {

class WakePipe {
 public:
  WakePipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe2 failed");
    read_end_.reset(fds[0]);
    write_end_.reset(fds[1]);
  }

  // A full pipe already holds a pending wake-up: the byte is not needed.
  static void notify(int write_fd) {
    const char byte = 1;
    [[maybe_unused]] const auto n = ::write(write_fd, &byte, 1);
  }
  void notify() const { notify(write_end_.get()); }

  [[nodiscard]] int read_fd() const { return read_end_.get(); }
  [[nodiscard]] int write_fd() const { return write_end_.get(); }

  // Empties the pipe after poll() said it was readable.
  void drain() const {
    char buf[64];
    while (::read(read_end_.get(), buf, sizeof buf) > 0) {
    }
  }

 private:
  UniqueFd read_end_;
  UniqueFd write_end_;
};

}  // namespace gpuwatch
