#include "annotate/annotation.h"

#include <cmath>

#include <fmt/format.h>
#include <simdjson.h>

namespace gpuwatch {

namespace dom = simdjson::dom;

std::string_view event_kind(AnnotationKind kind) {
  switch (kind) {
    case AnnotationKind::Step: return "step";
    case AnnotationKind::Epoch: return "epoch";
    case AnnotationKind::Phase: return "phase";
    case AnnotationKind::Log: return "log";
    case AnnotationKind::Mark: return "mark";
  }
  return "mark";
}

bool valid_log_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxLogNameBytes) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(name.front())) return false;
  for (char c : name) {
    if (!alpha(c) && !(c >= '0' && c <= '9') && c != '.') return false;
  }
  return true;
}

std::string format_log_values(const std::vector<std::pair<std::string, double>>& values) {
  std::string out;
  for (const auto& [name, value] : values) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={:.9g}", name, value);
  }
  return out;
}

namespace {

std::optional<AnnotationKind> kind_named(std::string_view s) {
  if (s == "step") return AnnotationKind::Step;
  if (s == "epoch") return AnnotationKind::Epoch;
  if (s == "phase") return AnnotationKind::Phase;
  if (s == "log") return AnnotationKind::Log;
  if (s == "mark") return AnnotationKind::Mark;
  return std::nullopt;
}

// A JSON number that is a whole number in [0, 2^53]: step and epoch counts.
std::optional<std::int64_t> count_of(dom::element e) {
  double d = 0;
  if (e.is_int64()) {
    const std::int64_t i = e.get_int64().value_unsafe();
    return i >= 0 ? std::optional(i) : std::nullopt;
  }
  if (e.is_uint64()) return std::nullopt;  // beyond int64
  if (e.get_double().get(d) != simdjson::SUCCESS) return std::nullopt;
  if (!(d >= 0 && d <= 9007199254740992.0) || std::floor(d) != d) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

std::optional<double> finite_number(dom::element e) {
  if (e.is_bool()) return std::nullopt;
  double d = 0;
  if (e.get_double().get(d) != simdjson::SUCCESS || !std::isfinite(d)) return std::nullopt;
  return d;
}

bool read_value(AnnotationKind kind, dom::element value, Annotation& out, std::string& why) {
  switch (kind) {
    case AnnotationKind::Step:
    case AnnotationKind::Epoch: {
      const auto n = count_of(value);
      if (!n) return why = "\"value\" of a step or epoch must be a whole number >= 0", false;
      out.count = *n;
      return true;
    }
    case AnnotationKind::Phase: {
      if (value.is_null()) return true;  // the phase ended
      std::string_view s;
      if (value.get_string().get(s) != simdjson::SUCCESS) return why = "\"value\" of a phase must be a string or null", false;
      if (s.size() > kMaxPhaseBytes) return why = fmt::format("phase names are at most {} bytes", kMaxPhaseBytes), false;
      out.text = s;
      return true;
    }
    case AnnotationKind::Mark: {
      std::string_view s;
      if (value.get_string().get(s) != simdjson::SUCCESS) return why = "\"value\" of a mark must be a string", false;
      if (s.size() > kMaxMarkBytes) return why = fmt::format("marks are at most {} bytes", kMaxMarkBytes), false;
      out.text = s;
      return true;
    }
    case AnnotationKind::Log: {
      dom::object values;
      if (value.get_object().get(values) != simdjson::SUCCESS) {
        return why = "\"value\" of a log must be an object of name: number", false;
      }
      for (auto [name, v] : values) {
        if (!valid_log_name(name)) return why = fmt::format("bad log name \"{}\"", name.substr(0, 80)), false;
        const auto number = finite_number(v);
        if (!number) continue;  // NaN loss, a string: nothing to plot, not an error
        if (out.values.size() == kMaxLogValues) return why = fmt::format("at most {} values per log", kMaxLogValues), false;
        out.values.emplace_back(std::string(name), *number);
      }
      if (out.values.empty()) return why = "a log without any finite number", false;
      return true;
    }
  }
  return false;
}

std::optional<SocketMessage> parse_request(std::size_t size, dom::object object, std::string& why) {
  if (size > kMaxRequestBytes) {
    why = fmt::format("a metrics request of {} bytes (at most {})", size, kMaxRequestBytes);
    return std::nullopt;
  }
  dom::element id;
  std::optional<std::int64_t> n;
  if (object["id"].get(id) == simdjson::SUCCESS) n = count_of(id);
  if (!n) {
    why = "\"id\" of a metrics request must be a whole number >= 0";
    return std::nullopt;
  }
  return MetricsRequest{*n};
}

}  // namespace

std::optional<SocketMessage> parse_socket_message(std::string_view datagram, std::string& why) {
  if (datagram.size() > kMaxDatagramBytes) {
    why = fmt::format("longer than {} bytes", kMaxDatagramBytes);
    return std::nullopt;
  }
  // One parser per thread: the socket thread and the output scanner parse
  // concurrently, and a parser reuses its buffers between messages.
  thread_local dom::parser parser;
  dom::element root;
  if (parser.parse(datagram.data(), datagram.size()).get(root) != simdjson::SUCCESS) {
    why = "not valid JSON";
    return std::nullopt;
  }
  dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) {
    why = "not a JSON object";
    return std::nullopt;
  }
  std::string_view kind_text;
  if (object["kind"].get_string().get(kind_text) != simdjson::SUCCESS) {
    why = "no \"kind\" string";
    return std::nullopt;
  }
  if (kind_text == kMetricsRequestKind) return parse_request(datagram.size(), object, why);
  const auto kind = kind_named(kind_text);
  if (!kind) {
    why = fmt::format("unknown kind \"{}\" (step, epoch, phase, log, mark or metrics)", kind_text.substr(0, 40));
    return std::nullopt;
  }
  Annotation out;
  out.kind = *kind;
  dom::element value;
  if (object["value"].get(value) != simdjson::SUCCESS) {
    why = "no \"value\"";
    return std::nullopt;
  }
  if (!read_value(*kind, value, out, why)) return std::nullopt;
  dom::element mono;
  if (object["mono_ns"].get(mono) == simdjson::SUCCESS) {
    std::int64_t ns = 0;
    if (mono.get_int64().get(ns) != simdjson::SUCCESS || ns < 0) {
      why = "\"mono_ns\" must be a whole number of nanoseconds";
      return std::nullopt;
    }
    out.sender_mono_ns = ns;
  }
  return out;
}

std::optional<Annotation> parse_annotation(std::string_view datagram, std::string& why) {
  auto message = parse_socket_message(datagram, why);
  if (!message) return std::nullopt;
  if (auto* a = std::get_if<Annotation>(&*message)) return std::move(*a);
  why = "a metrics request, not an annotation";
  return std::nullopt;
}

Event annotation_event(const Annotation& a, Timestamp received) {
  Timestamp at = received;
  constexpr std::int64_t kMaxAgeNs = 60'000'000'000;
  constexpr std::int64_t kClockSlackNs = 100'000'000;  // the sender read its clock before we did
  if (a.sender_mono_ns && *a.sender_mono_ns <= received.mono_ns + kClockSlackNs &&
      *a.sender_mono_ns >= received.mono_ns - kMaxAgeNs) {
    const std::int64_t sent = std::min(*a.sender_mono_ns, received.mono_ns);
    at.wall_ns -= received.mono_ns - sent;
    at.mono_ns = sent;
  }
  std::string message;
  switch (a.kind) {
    case AnnotationKind::Step: message = std::to_string(a.count); break;
    case AnnotationKind::Epoch: message = a.epoch_end ? std::string() : std::to_string(a.count); break;
    case AnnotationKind::Phase:
    case AnnotationKind::Mark: message = a.text; break;
    case AnnotationKind::Log: message = format_log_values(a.values); break;
  }
  return Event{at, std::nullopt, std::string(event_kind(a.kind)), std::move(message)};
}

}  // namespace gpuwatch
