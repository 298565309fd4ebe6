#include "annotate/annotation_throttle.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "annotate/annotation.h"
#include "core/log_message.h"
#include "core/step_timing.h"

namespace gpuwatch {

namespace {

// Which stream an event belongs to, or nullopt for kinds not held back
// (epochs, phases and marks each matter when they come).
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

// Step timing (core/step_timing.h) is a sum over the steps a message covers,
// not a latest value: a held-back message replaced by a newer one (several
// ranks send under the same names, or two messages come within a second)
// would take its steps with it. The newer one adds the older one's sums.
void fold_step_timing(const Event& older, Event& newer) {
  if (newer.message.find(kTimedStepsLogName) == std::string::npos) return;
  std::vector<std::pair<std::string, double>> values;
  for (const auto& [name, v] : parse_log_message(newer.message)) values.emplace_back(name, v);
  std::size_t folded = 0;
  for (const auto& [name, v] : parse_log_message(older.message)) {
    if (!is_step_timing_name(name)) continue;
    // By a plain reference: clang before 16 cannot capture a structured binding (P1091).
    const auto& step_name = name;
    const auto it = std::find_if(values.begin(), values.end(), [&](const auto& x) { return x.first == step_name; });
    if (it != values.end()) it->second += v;
    folded += it != values.end();
  }
  if (folded > 0) newer.message = format_log_values(values);
}

}  // namespace

std::string marks_dropped_message(std::size_t dropped) {
  return fmt::format("{} mark{} not stored (more than {} at once, then 1 a second, at most {} a run)", dropped,
                     dropped == 1 ? "" : "s", kMarkBurst, kMaxStoredMarks);
}

std::string logs_dropped_message(std::size_t dropped) {
  return fmt::format("{} log message{} not stored (more than {} different sets of names)", dropped,
                     dropped == 1 ? "" : "s", kMaxLogStreams);
}

bool AnnotationThrottle::admit_mark(std::int64_t mono_ns) {
  if (mark_refill_mono_ns_ && mono_ns > *mark_refill_mono_ns_) {
    const double earned = static_cast<double>(mono_ns - *mark_refill_mono_ns_) / static_cast<double>(spacing_ns_);
    mark_tokens_ = std::min(static_cast<double>(kMarkBurst), mark_tokens_ + earned);
  }
  if (!mark_refill_mono_ns_ || mono_ns > *mark_refill_mono_ns_) mark_refill_mono_ns_ = mono_ns;
  if (mark_tokens_ < 1 || stored_marks_ >= kMaxStoredMarks) return false;
  mark_tokens_ -= 1;
  ++stored_marks_;
  return true;
}

void AnnotationThrottle::add(Event event, std::vector<Event>& ready) {
  if (event.kind == "epoch" || event.kind == "phase") {
    auto [last, fresh] = last_label_.try_emplace(event.kind, event.message);
    if (!fresh && last->second == event.message) return;  // still the same epoch or phase
    last->second = event.message;
    release_step_timing(ready);
    ready.push_back(std::move(event));
    return;
  }
  if (event.kind == "mark") {
    if (admit_mark(event.time.mono_ns)) {
      ready.push_back(std::move(event));
    } else {
      ++dropped_marks_;
      last_dropped_ = event.time;
    }
    return;
  }
  const auto key = stream_of(event);
  if (!key) {
    ready.push_back(std::move(event));
    return;
  }
  auto found = streams_.find(*key);
  if (found == streams_.end()) {
    if (event.kind == "log" && log_streams_ >= kMaxLogStreams) {
      ++dropped_logs_;
      last_dropped_log_ = event.time;
      return;
    }
    if (event.kind == "log") ++log_streams_;
    found = streams_.emplace(*key, Stream{}).first;
  }
  Stream& s = found->second;
  if (!s.last_stored_mono_ns || event.time.mono_ns - *s.last_stored_mono_ns >= spacing_ns_) {
    s.last_stored_mono_ns = event.time.mono_ns;
    s.held.reset();  // older than this one
    ready.push_back(std::move(event));
  } else {
    if (s.held) fold_step_timing(*s.held, event);
    s.held = std::move(event);
  }
}

// Before an epoch or phase begins: held step timing is the one before's, and
// must not be summed into a message of the next one.
void AnnotationThrottle::release_step_timing(std::vector<Event>& ready) {
  for (auto& [key, s] : streams_) {
    if (!s.held || s.held->kind != "log" || s.held->message.find(kTimedStepsLogName) == std::string::npos) continue;
    s.last_stored_mono_ns = s.held->time.mono_ns;
    ready.push_back(std::move(*s.held));
    s.held.reset();
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
  if (dropped_marks_ > 0 && last_dropped_) {
    ready.push_back(Event{*last_dropped_, std::nullopt, "marks_dropped", marks_dropped_message(dropped_marks_)});
    last_dropped_.reset();  // said once, however often this is called
  }
  if (dropped_logs_ > 0 && last_dropped_log_) {
    ready.push_back(Event{*last_dropped_log_, std::nullopt, "logs_dropped", logs_dropped_message(dropped_logs_)});
    last_dropped_log_.reset();
  }
}

}  // namespace gpuwatch
