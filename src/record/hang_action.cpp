#include "record/hang_action.h"

#include <algorithm>
#include <cctype>
#include <csignal>

#include <fmt/format.h>

#include "core/whole_number.h"

namespace gpuwatch {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

int signal_number(std::string_view name) {
  for (int sig = 1; sig < NSIG; ++sig) {
    const char* abbrev = sigabbrev_np(sig);
    if (abbrev != nullptr && (upper(name) == abbrev || upper(name) == std::string("SIG") + abbrev)) return sig;
  }
  if (const auto sig = parse_whole_number<int>(name); sig && *sig >= 1 && *sig < NSIG) return *sig;
  // What the user typed, shortened: the message stays one line.
  const std::string shown = name.size() > 24 ? std::string(name.substr(0, 24)) + "..." : std::string(name);
  throw HangActionError(fmt::format("'{}' is not a signal (a name such as USR1 or SIGUSR1, or a number)", shown));
}

}  // namespace

HangAction parse_hang_action(std::string_view text) {
  if (text == "kill") return {HangAction::Kind::Kill, SIGTERM};
  constexpr std::string_view kSignal = "signal=";
  if (text.starts_with(kSignal)) {
    const int sig = signal_number(text.substr(kSignal.size()));
    if (sig == SIGKILL || sig == SIGSTOP) {
      throw HangActionError("SIGKILL and SIGSTOP cannot be handled by the job: use `--on-hang kill`");
    }
    return {HangAction::Kind::Signal, sig};
  }
  throw HangActionError("expected kill or signal=NAME (e.g. signal=USR1)");
}

std::string signal_name(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev : fmt::format("signal {}", signal);
}

}  // namespace gpuwatch
