// `record --on-hang`: what to do when the advisor says job.hung. Never
// default: `kill` stops the command's process group once the hang has held
// --after seconds (SIGTERM, SIGKILL after a grace, exit kHangExitCode);
// `signal=NAME` sends that signal once per hang, for jobs that dump their
// stacks on it (faulthandler.register(signal.SIGUSR1)).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuwatch {

struct HangAction {
  enum class Kind { Kill, Signal };
  Kind kind = Kind::Kill;
  int signal = 0;  // Signal: the number
};

class HangActionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// "kill", or "signal=NAME" with NAME a signal's name with or without SIG,
// any case ("USR1", "SIGUSR1", "term"), or its number. Throws HangActionError.
HangAction parse_hang_action(std::string_view text);

// "SIGUSR1"
std::string signal_name(int signal);

}  // namespace gpuwatch
