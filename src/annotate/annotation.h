// Annotations: what the training tells gpuwatch about itself (step, epoch,
// phase, scalars such as the loss, free-form marks), sent over the
// GPUWATCH_SOCKET datagram socket or taken from the command's output. They
// are stored as events on the samples' clock; docs/annotations.md has the
// wire format and the stored form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

enum class AnnotationKind { Step, Epoch, Phase, Log, Mark };

// The event kind an annotation is stored under: "step", "epoch", ...
std::string_view event_kind(AnnotationKind kind);

inline constexpr std::size_t kMaxDatagramBytes = 8192;
inline constexpr std::size_t kMaxPhaseBytes = 64;
inline constexpr std::size_t kMaxMarkBytes = 1024;
inline constexpr std::size_t kMaxLogNameBytes = 64;
inline constexpr std::size_t kMaxLogValues = 32;

struct Annotation {
  AnnotationKind kind = AnnotationKind::Mark;
  std::int64_t count = 0;   // step, epoch
  std::string text;         // phase name ("" ends the phase), mark text
  std::vector<std::pair<std::string, double>> values;  // log: name -> value
  std::optional<std::int64_t> sender_mono_ns;  // CLOCK_MONOTONIC of the sender
};

// Parses one datagram. On failure returns nullopt and says why in `why`.
std::optional<Annotation> parse_annotation(std::string_view datagram, std::string& why);

// "loss=0.53 lr=0.001": how log values are stored, and read back by analysis.
std::string format_log_values(const std::vector<std::pair<std::string, double>>& values);
bool valid_log_name(std::string_view name);

// The stored event. `received` is when the recorder got the annotation; a
// sender's time that is plausible (not in the future, at most a minute old)
// places it more exactly, since a datagram can wait in the queue.
Event annotation_event(const Annotation& a, Timestamp received);

}  // namespace gpuwatch
