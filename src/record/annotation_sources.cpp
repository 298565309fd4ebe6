#include "record/annotation_sources.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace gpuwatch {

AnnotationSources::AnnotationSources(RecordingSink& sink, const std::vector<std::string>& output_patterns,
                                     const SocketPlace& place, AnnotationSocket::Answerer answer_metrics)
    : sink_(sink) {
  auto deliver = [this](const Annotation& a, Timestamp when) { sink_.post_annotation(a, when); };
  if (!output_patterns.empty()) {
    std::vector<OutputPattern> patterns;
    for (const std::string& p : output_patterns) {
      try {
        patterns.emplace_back(p);
      } catch (const PatternError& e) {
        throw PatternError(fmt::format("--annotate-regex '{}': {}", p, e.what()));
      }
    }
    tee_ = std::make_unique<OutputTee>(std::move(patterns), deliver);
  }
  try {
    socket_ = std::make_unique<AnnotationSocket>(deliver, std::move(answer_metrics), place);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuwatch: %s; recording without annotations from GPUWATCH_SOCKET\n", e.what());
  }
}

std::vector<std::pair<std::string, std::string>> AnnotationSources::child_environment(
    const std::vector<std::string>& inherited) const {
  std::vector<std::pair<std::string, std::string>> env;
  if (socket_) env.emplace_back("GPUWATCH_SOCKET", socket_->path().string());
  const bool unbuffered = std::any_of(inherited.begin(), inherited.end(),
                                      [](const std::string& e) { return e.starts_with("PYTHONUNBUFFERED="); });
  if (tee_ && !unbuffered) env.emplace_back("PYTHONUNBUFFERED", "1");
  return env;
}

ChildOutput AnnotationSources::child_output() const {
  if (!tee_) return {};
  return {tee_->child_stdout(), tee_->child_stderr()};
}

std::string AnnotationSources::socket_path() const { return socket_ ? socket_->path().string() : std::string(); }

void AnnotationSources::command_started() {
  if (tee_) tee_->start();
}

void AnnotationSources::command_finished() {
  if (tee_) tee_->finish();
  if (!socket_) return;
  // Stopping the reader drains what the command sent before it exited.
  const std::unique_ptr<AnnotationSocket> socket = std::move(socket_);
  socket->stop();
  if (socket->rejected() > 0) {
    std::fprintf(stderr, "gpuwatch: %zu message%s on GPUWATCH_SOCKET %s not understood (the first: %s)\n",
                 socket->rejected(), socket->rejected() == 1 ? "" : "s", socket->rejected() == 1 ? "was" : "were",
                 socket->first_rejection().c_str());
  }
}

}  // namespace gpuwatch
