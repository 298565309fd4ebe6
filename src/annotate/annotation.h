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
#include <variant>
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
  // Epoch only: `count` ends here (an `epoch_end` group) rather than starts;
  // stored as an epoch event with an empty message, which ends the epoch.
  bool epoch_end = false;
};

// A request for the recorder's latest values (gpuwatch.metrics()):
// {"kind":"metrics","id":N}, at most kMaxRequestBytes. The answer is one
// datagram back to the sender's address, carrying the same id
// (docs/annotations.md).
inline constexpr std::string_view kMetricsRequestKind = "metrics";
inline constexpr std::size_t kMaxRequestBytes = 256;
struct MetricsRequest {
  std::int64_t id = 0;  // a whole number in [0, 2^53], echoed in the answer
};

// What one datagram on GPUWATCH_SOCKET may be.
using SocketMessage = std::variant<Annotation, MetricsRequest>;

// Parses one datagram of the socket. On failure returns nullopt and says
// why in `why`.
std::optional<SocketMessage> parse_socket_message(std::string_view datagram, std::string& why);
// Parses one datagram that must be an annotation (a request is refused).
std::optional<Annotation> parse_annotation(std::string_view datagram, std::string& why);

// "loss=0.53 lr=0.001": how log values are stored, and read back by analysis.
std::string format_log_values(const std::vector<std::pair<std::string, double>>& values);
bool valid_log_name(std::string_view name);

// The stored event. `received` is when the recorder got the annotation; a
// sender's time that is plausible (not in the future, at most a minute old)
// places it more exactly, since a datagram can wait in the queue.
Event annotation_event(const Annotation& a, Timestamp received);

}  // namespace gpuwatch
