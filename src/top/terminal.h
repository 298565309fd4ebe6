// The terminal under `gpuwatch top`: ncurses set up and torn down, screens
// drawn with styles mapped to colours (or, on a monochrome terminal and under
// NO_COLOR, to bold and reverse video), keys read without blocking. The
// terminal is given back on every way out: the destructor, Ctrl-C, Ctrl-\ and
// SIGTERM (through stop_requested()), and a crash signal (a handler restores
// the saved terminal modes before the default action runs).
#pragma once

#include <cstddef>

#include "render/top/screen.h"
#include "top/wake_pipe.h"

struct screen;  // ncurses' SCREEN

namespace gpuwatch {

class Terminal {
 public:
  // Throws std::runtime_error when stdin/stdout is not a terminal: checked
  // before anything else is opened.
  static void require_terminal();
  // Throws std::runtime_error when stdin/stdout is not a terminal or TERM
  // (`term`, for the message) names one ncurses cannot drive. `no_colour`:
  // NO_COLOR is set.
  Terminal(const std::string& term, bool no_colour);
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  [[nodiscard]] std::size_t width() const;
  [[nodiscard]] std::size_t height() const;
  // Draws only what changed since the last screen (ncurses' own diff): no flicker.
  void draw(const Screen& screen);
  // The next key, or -1 when none is waiting. A resize reads as kKeyResize.
  int read_key();

  // Set by SIGINT, SIGTERM, SIGHUP and SIGQUIT: the loop should give the
  // terminal back.
  static bool stop_requested();
  // Readable once a stop signal has come: poll it with the keys, so a signal
  // that comes while the loop is busy is not slept through.
  [[nodiscard]] int wake_fd() const { return wake_.read_fd(); }
  void drain_wake() const { wake_.drain(); }
  // No UTF-8 locale could be had: graphs and symbols are drawn in ASCII.
  [[nodiscard]] bool ascii() const { return ascii_; }

 private:
  struct screen* screen_ = nullptr;
  WakePipe wake_;
  bool ascii_ = false;
};

inline constexpr int kKeyResize = 0x19a;  // ncurses KEY_RESIZE

}  // namespace gpuwatch
