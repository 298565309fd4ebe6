// The status line on a terminal, kept on its bottom row: the rows above it
// become the terminal's scrolling region, so the command's own output scrolls
// there and never runs into the line (as apt's progress bar does). Follows
// resizes within a few hundredths of a second; gives the terminal back whole
// when destroyed.
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
  // Rows of the terminal now (0 when it does not say).
  [[nodiscard]] int rows() const;
  void reserve(int rows);  // with mutex_ held
  void write(const std::string& text);
  void watch_resizes();

  std::FILE* out_;
  std::mutex mutex_;
  int reserved_rows_ = 0;  // the terminal's height when the region was set; 0: none set
  bool stopping_ = false;
  std::condition_variable wake_;
  std::thread resize_watcher_;
};

}  // namespace gpuwatch
