// Annotations on arbitrary bytes, as a training process (or its output) can
// send them: the datagram parser either accepts a message (an annotation or a
// metrics request) that satisfies the protocol's limits or says why not, and
// the output scanner finds only well-formed annotations in any line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "annotate/annotation.h"
#include "annotate/output_pattern.h"

namespace {

using namespace gpuwatch;

void check(const Annotation& a) {
  if (a.count < 0) __builtin_trap();
  if (a.kind == AnnotationKind::Phase && a.text.size() > kMaxPhaseBytes) __builtin_trap();
  if (a.kind == AnnotationKind::Mark && a.text.size() > kMaxMarkBytes) __builtin_trap();
  if (a.kind == AnnotationKind::Log && (a.values.empty() || a.values.size() > kMaxLogValues)) __builtin_trap();
  for (const auto& [name, value] : a.values) {
    if (!valid_log_name(name) || value != value) __builtin_trap();
  }
  const Event e = annotation_event(a, Timestamp{1'000'000'000'000, 2'000'000'000'000});
  if (e.kind != event_kind(a.kind)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  if (const auto message = parse_socket_message(text, why)) {
    if (const auto* a = std::get_if<Annotation>(&*message)) {
      check(*a);
    } else {
      const auto& request = std::get<MetricsRequest>(*message);
      if (request.id < 0 || request.id > (std::int64_t{1} << 53) || size > kMaxRequestBytes) __builtin_trap();
    }
    // parse_annotation() agrees: the same annotation, or a refused request.
    std::string why_annotation;
    if (parse_annotation(text, why_annotation).has_value() != std::holds_alternative<Annotation>(*message)) {
      __builtin_trap();
    }
  } else if (why.empty()) {
    __builtin_trap();  // a rejection always says why
  }
  static const OutputPattern pattern(
      R"(Epoch (?<epoch>\d+)[^|]*\| *step (?<step>\S+) .*loss[:=] *(?<loss>[-+0-9.eE]+)(?: (?<phase>\w+))?)");
  for (const Annotation& a : pattern.match(text)) check(a);
  return 0;
}
