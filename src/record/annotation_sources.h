// Where a recording's annotations come from: the GPUWATCH_SOCKET socket,
// and with --annotate-regex the command's own output.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "annotate/annotation_socket.h"
#include "annotate/output_tee.h"
#include "process/child_process.h"
#include "record/recording_sink.h"

namespace gpuwatch {

class AnnotationSources {
 public:
  // Throws PatternError for a bad --annotate-regex. A socket that cannot be
  // made costs the annotations, not the recording: it is reported and skipped.
  // answer_metrics answers gpuwatch.metrics() requests (none: not answered).
  AnnotationSources(RecordingSink& sink, const std::vector<std::string>& output_patterns,
                    const SocketPlace& place, AnnotationSocket::Answerer answer_metrics = {});

  // GPUWATCH_SOCKET (and PYTHONUNBUFFERED when the output is scanned and
  // `inherited` has none: a Python command writing to a pipe would
  // otherwise hold its lines back).
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> child_environment(
      const std::vector<std::string>& inherited) const;
  [[nodiscard]] ChildOutput child_output() const;
  [[nodiscard]] std::string socket_path() const;
  void command_started();
  // Passes on the rest of the command's output; reports messages that were
  // not understood. Call after the command exited, before the sink finishes.
  void command_finished();

 private:
  RecordingSink& sink_;
  std::unique_ptr<AnnotationSocket> socket_;
  std::unique_ptr<OutputTee> tee_;
};

}  // namespace gpuwatch
