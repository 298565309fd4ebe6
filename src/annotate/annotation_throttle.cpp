#include "annotate/annotation_throttle.h"

#include <string_view>

namespace gpuwatch {

namespace {

// Which stream an event belongs to, or nullopt for kinds stored at once
// (epochs, phases and marks are rare and each one matters).
std::optional<std::string> stream_of(const Event& e) {
  if (e.kind == "step") return std::string("step");
  if (e.kind != "log") return std::nullopt;
  // "loss=0.5 lr=0.1" -> "log:loss lr": the names, not the values.
  std::string key = "log:";
  std::string_view rest = e.message;
  while (!rest.empty()) {
    const std::size_t space = rest.find(' ');
    const std::string_view pair = rest.substr(0, space);
    key += pair.substr(0, pair.find('='));
    key += ' ';
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  return key;
}

}  // namespace

void AnnotationThrottle::add(Event event, std::vector<Event>& ready) {
  const auto key = stream_of(event);
  if (!key) {
    ready.push_back(std::move(event));
    return;
  }
  Stream& s = streams_[*key];
  if (!s.last_stored_mono_ns || event.time.mono_ns - *s.last_stored_mono_ns >= spacing_ns_) {
    s.last_stored_mono_ns = event.time.mono_ns;
    s.held.reset();  // older than this one
    ready.push_back(std::move(event));
  } else {
    s.held = std::move(event);
  }
}

void AnnotationThrottle::take_due(std::int64_t now_mono_ns, std::vector<Event>& ready) {
  for (auto& [key, s] : streams_) {
    if (s.held && now_mono_ns - *s.last_stored_mono_ns >= spacing_ns_) {
      s.last_stored_mono_ns = s.held->time.mono_ns;
      ready.push_back(std::move(*s.held));
      s.held.reset();
    }
  }
}

void AnnotationThrottle::take_all(std::vector<Event>& ready) {
  for (auto& [key, s] : streams_) {
    if (s.held) ready.push_back(std::move(*s.held));
    s.held.reset();
  }
}

}  // namespace gpuwatch
