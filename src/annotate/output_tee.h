// --annotate-regex needs to see what the command prints: its stdout and
// stderr go through pipes to a forwarder process (annotate/output_forwarder.h)
// that passes every byte on unchanged (no line buffering: progress bars still
// draw) and sends a copy here, where a thread scans whole lines.
// The command must not notice the detour: when the reader of our stdout goes
// away (`| head -1`), the forwarder closes its end of the command's pipe, so
// the command's next write fails with SIGPIPE as it would have without
// gpuwatch between; and when the recorder dies, the forwarder goes on.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include "annotate/epoch_ends.h"
#include "annotate/output_pattern.h"

namespace gpuwatch {

class OutputTee {
 public:
  using Handler = std::function<void(const Annotation&, Timestamp seen)>;

  // Creates the pipes and starts the forwarder; throws std::runtime_error.
  OutputTee(std::vector<OutputPattern> patterns, Handler on_annotation);
  ~OutputTee();
  OutputTee(const OutputTee&) = delete;
  OutputTee& operator=(const OutputTee&) = delete;

  // The ends the command writes to, as its fd 1 and 2.
  [[nodiscard]] int child_stdout() const { return command_stdout_[1]; }
  [[nodiscard]] int child_stderr() const { return command_stderr_[1]; }
  // Once the command runs: closes our copies of its ends and starts scanning.
  void start();
  // After the command exited: tells the forwarder, which passes on what is
  // left until the pipes close, stay quiet for a moment, or a short grace
  // has passed; scans the last lines and reaps the forwarder.
  void finish();

 private:
  struct Stream {
    int read_fd;
    std::string partial_line;
    bool open = true;
  };
  void scan_copies();
  bool read_some(Stream& s);
  void scan(std::string_view line);
  void reap_forwarder();

  std::vector<OutputPattern> patterns_;
  Handler on_annotation_;
  int command_stdout_[2] = {-1, -1};  // the command writes [1]; the forwarder reads [0]
  int command_stderr_[2] = {-1, -1};
  int copy_stdout_[2] = {-1, -1};     // the forwarder writes [1]; we read [0]
  int copy_stderr_[2] = {-1, -1};
  int finish_[2] = {-1, -1};          // we write [1] when the command exited
  int stop_scanning_[2] = {-1, -1};   // ends our thread if the copies never close
  pid_t forwarder_ = -1;
  EpochEnds epoch_ends_{Timestamp{}};  // set again when the command starts
  std::thread thread_;
};

}  // namespace gpuwatch
