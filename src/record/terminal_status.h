// The status line on a terminal, kept on its bottom row: the rows above it
// become the terminal's scrolling region, so the command's own output scrolls
// there and never runs into the line (as apt's progress bar does). Follows
// resizes (of its height or only its width: terminals reset the scrolling
// region on either) within a few hundredths of a second; gives the terminal
// back whole when destroyed.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace gpuwatch {

class TerminalStatusLine {
 public:
  // `out` must be a terminal.
  explicit TerminalStatusLine(std::FILE* out);
  ~TerminalStatusLine();
  TerminalStatusLine(const TerminalStatusLine&) = delete;
  TerminalStatusLine& operator=(const TerminalStatusLine&) = delete;

  // Columns of the terminal now (80 when it does not say).
  [[nodiscard]] std::size_t width() const;
  // Draws `line` (at most width() columns) on the bottom row.
  void draw(const std::string& line);

 private:
  struct Size {
    int rows = 0;  // 0: the terminal does not say
    int columns = 0;
    bool operator==(const Size&) const = default;
  };
  [[nodiscard]] Size size() const;
  void reserve(Size size);  // with mutex_ held
  void write(const std::string& text);
  void watch_resizes();

  std::FILE* out_;
  std::mutex mutex_;
  // The terminal's size when the region was set; rows 0: none set.
  Size reserved_;
  bool stopping_ = false;
  std::condition_variable wake_;
  std::thread resize_watcher_;
};

}  // namespace gpuwatch
