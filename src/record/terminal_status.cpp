#include "record/terminal_status.h"

#include <pthread.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

bool window_size(std::FILE* out, winsize& ws) {
  return ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0;
}

// VT100: save and restore the cursor, set the scrolling region, move.
constexpr const char* kSaveCursor = "\x1b" "7";
constexpr const char* kRestoreCursor = "\x1b" "8";

// The command's group has the terminal, so SIGWINCH goes to it, not to us:
// the size is asked for instead, often enough that a command printing a
// line every few hundredths of a second does not reach the stale status row
// (its second line after a resize would be written over it, and glued to its
// remains).
constexpr std::chrono::milliseconds kResizeCheck{20};

}  // namespace

TerminalStatusLine::TerminalStatusLine(std::FILE* out)
    : out_(out), resize_watcher_([this] { watch_resizes(); }) {}

TerminalStatusLine::~TerminalStatusLine() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  resize_watcher_.join();
  if (reserved_.rows == 0) return;
  // The whole screen scrolls again; the status row is cleared.
  write(fmt::format("{}\x1b[r\x1b[{};1H\x1b[2K{}", kSaveCursor, reserved_.rows, kRestoreCursor));
}

TerminalStatusLine::Size TerminalStatusLine::size() const {
  winsize ws{};
  if (!window_size(out_, ws)) return {};
  return {ws.ws_row, ws.ws_col};
}

std::size_t TerminalStatusLine::width() const {
  winsize ws{};
  return window_size(out_, ws) ? ws.ws_col : 80;
}

// Takes the bottom row away from the scrolling region. The cursor must end
// inside the region, or the command's next lines are written over the status
// row and lost (issue 22: after a resize, the terminal had reset the region
// and the cursor sat on the new bottom row). IND (ESC D) moves the cursor
// down a row, scrolling the screen when it is on the bottom one, without
// moving it to the first column as "\n" on a terminal does. Everything from
// there down is cleared: below the cursor there is no output of the
// command's, only blank rows or the old status row wherever the resize put
// it, which the command's next lines would otherwise be glued to. Setting
// the region sends the cursor home, so it is saved and restored around it;
// then it goes back up the row IND took, and clears it: when the resize left
// the cursor on the old status row (a terminal that keeps a non-empty bottom
// row on a shrink, as tmux does, puts the command's next newline there), IND
// scrolled that stale status text up into the cursor's row, and the
// command's next line would be glued to it. The cursor's row holds no line
// of the command's: it stands after the command's last newline.
// A change of width alone counts as a resize (issue 26): tmux and xterm
// reset the scrolling region on any resize, and a watcher that compared
// heights only left the region unset, the command's lines then scrolling
// into the status row, which the next refresh wrote over.
void TerminalStatusLine::reserve(Size size) {
  write(fmt::format("\x1b" "D\x1b[2K\x1b[J{}\x1b[1;{}r{}\x1b[1A\x1b[2K", kSaveCursor, size.rows - 1, kRestoreCursor));
  reserved_ = size;
}

void TerminalStatusLine::watch_resizes() {
  pthread_setname_np(pthread_self(), "gw-resize");
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, kResizeCheck, [this] { return stopping_; })) {
    if (reserved_.rows == 0) continue;  // nothing drawn yet
    const Size now_size = size();
    // The region is set again and the row below the cursor cleared; the
    // line itself is drawn at the next refresh.
    if (now_size.rows >= 2 && now_size != reserved_) reserve(now_size);
  }
}

void TerminalStatusLine::draw(const std::string& line) {
  std::lock_guard lock(mutex_);
  const Size now_size = size();
  if (now_size.rows < 2) {
    // Too small, or not saying: the line in place, as a plain terminal gets it.
    write("\r\x1b[K" + line);
    return;
  }
  if (now_size != reserved_) reserve(now_size);
  write(fmt::format("{}\x1b[{};1H\x1b[2K{}{}", kSaveCursor, now_size.rows, line, kRestoreCursor));
}

void TerminalStatusLine::write(const std::string& text) {
  // A closed terminal must never stop the recording: errors are ignored.
  std::fwrite(text.data(), 1, text.size(), out_);
  std::fflush(out_);
}

}  // namespace gpuwatch
