#include "record/terminal_status.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

bool window_size(std::FILE* out, winsize& ws) {
  return ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0;
}

// VT100: save and restore the cursor, set the scrolling region, move.
constexpr const char* kSaveCursor = "\x1b" "7";
constexpr const char* kRestoreCursor = "\x1b" "8";

}  // namespace

TerminalStatusLine::TerminalStatusLine(std::FILE* out) : out_(out) {}

TerminalStatusLine::~TerminalStatusLine() {
  if (reserved_rows_ == 0) return;
  // The whole screen scrolls again; the status row is cleared.
  write(fmt::format("{}\x1b[r\x1b[{};1H\x1b[2K{}", kSaveCursor, reserved_rows_, kRestoreCursor));
}

int TerminalStatusLine::rows() const {
  winsize ws{};
  return window_size(out_, ws) ? ws.ws_row : 0;
}

std::size_t TerminalStatusLine::width() const {
  winsize ws{};
  return window_size(out_, ws) ? ws.ws_col : 80;
}

void TerminalStatusLine::reserve(int rows) {
  if (reserved_rows_ == 0) {
    // A new line first, so that the cursor's row is not the one taken away,
    // then the region above the last row, and the cursor back where it was.
    write(fmt::format("\n{}\x1b[1;{}r{}\x1b[1A", kSaveCursor, rows - 1, kRestoreCursor));
  } else {
    // Resized: the old status row may now be anywhere; clear it and set the
    // region for the new height.
    write(fmt::format("{}\x1b[{};1H\x1b[2K\x1b[1;{}r{}", kSaveCursor, std::min(reserved_rows_, rows), rows - 1,
                      kRestoreCursor));
  }
  reserved_rows_ = rows;
}

void TerminalStatusLine::draw(const std::string& line) {
  const int now_rows = rows();
  if (now_rows < 2) {
    // Too small, or not saying: the line in place, as a plain terminal gets it.
    write("\r\x1b[K" + line);
    return;
  }
  if (now_rows != reserved_rows_) reserve(now_rows);
  write(fmt::format("{}\x1b[{};1H\x1b[2K{}{}", kSaveCursor, now_rows, line, kRestoreCursor));
}

void TerminalStatusLine::write(const std::string& text) {
  // A closed terminal must never stop the recording: errors are ignored.
  std::fwrite(text.data(), 1, text.size(), out_);
  std::fflush(out_);
}

}  // namespace gpuwatch
