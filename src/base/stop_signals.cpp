#include "base/stop_signals.h"

#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace gpuwatch {

StopSignals::StopSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  // Every thread started from here on (httplib's, the sampler's) inherits
  // the mask: the signals wait for the fd.
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  fd_ = ::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "signalfd");
}

StopSignals::~StopSignals() { ::close(fd_); }

void StopSignals::unblock() {
  // The signal that stopped the loop is still pending until read: unblocked
  // unread, it would end the process now rather than at the next Ctrl-C.
  signalfd_siginfo info;
  while (::read(fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
  }
  pthread_sigmask(SIG_UNBLOCK, &set_, nullptr);
}

}  // namespace gpuwatch
