// --annotate-regex needs to see what the command prints: its stdout and
// stderr go through pipes to a thread that passes every byte on unchanged
// (no line buffering: progress bars still draw) and scans whole lines.
// The command must not notice the detour: when the reader of our stdout goes
// away (`| head -1`), our end of the command's pipe is closed too, so its
// next write fails with SIGPIPE as it would have without gpuwatch between.
#pragma once

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "annotate/output_pattern.h"

namespace gpuwatch {

class OutputTee {
 public:
  using Handler = std::function<void(const Annotation&, Timestamp seen)>;

  // Creates the pipes; throws std::runtime_error.
  OutputTee(std::vector<OutputPattern> patterns, Handler on_annotation);
  ~OutputTee();
  OutputTee(const OutputTee&) = delete;
  OutputTee& operator=(const OutputTee&) = delete;

  // The ends the command writes to, as its fd 1 and 2.
  [[nodiscard]] int child_stdout() const { return stdout_pipe_[1]; }
  [[nodiscard]] int child_stderr() const { return stderr_pipe_[1]; }
  // Once the command runs: closes our copies of its ends and starts passing
  // output on.
  void start();
  // After the command exited: passes on what is left, until the pipes close,
  // stay quiet for a moment, or a short grace has passed (a leftover
  // grandchild may hold them open and keep writing).
  void finish();

 private:
  struct Stream {
    int& read_fd;  // ours; closed when its reader downstream is gone
    int forward_fd;
    std::string partial_line;
    bool open = true;
  };
  void pump();
  bool read_some(Stream& s);
  void scan(std::string_view line);

  std::vector<OutputPattern> patterns_;
  Handler on_annotation_;
  int stdout_pipe_[2] = {-1, -1};
  int stderr_pipe_[2] = {-1, -1};
  int stop_pipe_[2] = {-1, -1};
  std::thread thread_;
};

}  // namespace gpuwatch
