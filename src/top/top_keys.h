// What each key does in `gpuwatch top`, as a pure state machine over the
// view: testable without a terminal. The terminal loop turns the outcome into
// effects (restart sampling at a new interval, send a signal, quit).
#pragma once

#include <chrono>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "render/top/top_view.h"

namespace gpuwatch {

// Keys beyond plain characters, as the terminal layer reports them.
inline constexpr int kKeyUp = 0x103;    // ncurses KEY_UP
inline constexpr int kKeyDown = 0x102;  // ncurses KEY_DOWN
inline constexpr int kKeyEscape = 27;
inline constexpr int kKeyHome = 0x106;       // ncurses KEY_HOME
inline constexpr int kKeyEnd = 0x168;        // ncurses KEY_END
inline constexpr int kKeyPageDown = 0x152;   // ncurses KEY_NPAGE
inline constexpr int kKeyPageUp = 0x153;     // ncurses KEY_PPAGE
inline constexpr int kKeyEnter = 0x157;      // ncurses KEY_ENTER
inline constexpr int kKeyBackspace = 0x107;  // ncurses KEY_BACKSPACE
// The `/` filter's longest text: a pid, a user, a word of a command.
inline constexpr std::size_t kMaxFilterBytes = 64;
// PgUp and PgDn move the selection by this many processes.
inline constexpr std::size_t kProcessPage = 10;

// The interval steps + and - move along (seconds). 0.1 s is the floor: a
// screen redrawn faster cannot be read, and sampling costs grow with it.
inline constexpr double kTopIntervals[] = {0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60};

struct SignalRequest {
  std::uint32_t pid = 0;
  std::uint64_t start_ticks = 0;  // the process chosen; a later one with its pid is refused
  int signal = 0;
};

struct KeyOutcome {
  bool quit = false;
  std::optional<double> interval_s;      // sample at this interval from now on
  std::optional<SignalRequest> signal;   // send it, then call signal_sent()
};

class TopKeys {
 public:
  // `my_uid`: the real uid of gpuwatch; `root`: may signal anyone's process.
  TopKeys(std::uint32_t my_uid, bool root) : my_uid_(my_uid), root_(root) {}

  // Applies `key` to `view` (selection, sort, focus, help, the message
  // line). `at`: when it was pressed (two digits within a second name GPUs
  // 10 and up).
  KeyOutcome handle(int key, TopView& view,
                    std::chrono::steady_clock::time_point at = std::chrono::steady_clock::now());

  // What kill() said: 0 or an errno. Sets the message line.
  void signal_sent(const SignalRequest& request, int error, TopView& view);

 private:
  void ask_to_kill(TopView& view);
  void focus_digit(int digit, TopView& view, std::chrono::steady_clock::time_point at);
  // While the filter is typed: text, Backspace, Enter (keep), Esc (clear).
  void edit_filter(int key, TopView& view);

  struct Digit {
    int digit = 0;
    std::chrono::steady_clock::time_point at;
  };

  std::uint32_t my_uid_;
  bool root_;
  std::optional<SignalRequest> pending_;  // waiting for y/n
  std::optional<SignalRequest> terminated_;  // sent SIGTERM; k again offers SIGKILL
  std::optional<Digit> last_digit_;  // the key before was this digit
};

// The next interval up or down the steps from `current`.
double next_interval(double current, int direction);

}  // namespace gpuwatch
