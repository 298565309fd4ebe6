// How `exporter` and `serve` wait for Ctrl-C: beside other fds in a poll
// loop, never in a handler.
#pragma once

#include <signal.h>

namespace gpuwatch {

// SIGINT and SIGTERM, blocked in every thread started after it and taken
// through a signalfd that a poll loop can wait on.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  [[nodiscard]] int fd() const { return fd_; }
  // Takes the signals that came, then lets a second Ctrl-C end the process
  // at once.
  void unblock();

 private:
  sigset_t set_;
  int fd_ = -1;
};

}  // namespace gpuwatch
