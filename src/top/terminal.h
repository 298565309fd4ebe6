// The terminal under `gpuwatch top`: ncurses set up and torn down, screens
// drawn with styles mapped to colours (or, on a monochrome terminal and under
// NO_COLOR, to bold and reverse video), keys read without blocking. The
// terminal is given back on every way out: the destructor, Ctrl-C and
// SIGTERM (through stop_requested()), and a crash signal (a handler restores
// the saved terminal modes before the default action runs).
#pragma once

#include <cstddef>

#include "render/top/screen.h"

namespace gpuwatch {

class Terminal {
 public:
  Terminal();  // throws std::runtime_error when stdin/stdout is not a terminal
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  [[nodiscard]] std::size_t width() const;
  [[nodiscard]] std::size_t height() const;
  // Draws only what changed since the last screen (ncurses' own diff): no flicker.
  void draw(const Screen& screen);
  // The next key, or -1 when none is waiting. A resize reads as kKeyResize.
  int read_key();

  // Set by SIGINT, SIGTERM and SIGHUP: the loop should give the terminal back.
  static bool stop_requested();
};

inline constexpr int kKeyResize = 0x19a;  // ncurses KEY_RESIZE

}  // namespace gpuwatch
