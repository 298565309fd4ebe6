#include "analysis/advisor/recorded.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

std::optional<Severity> severity_named(std::string_view word) {
  for (const Severity s : {Severity::Info, Severity::Warning, Severity::Critical}) {
    if (to_string(s) == word) return s;
  }
  return std::nullopt;
}

struct ParsedAdvisoryEvent {
  std::optional<Severity> severity;  // none: cleared
  AdvisoryRef ref;
  std::string summary;
};

// "<severity> <id>[ GPU <n>]: <summary>" or "cleared <id>[ GPU <n>]", as the
// live advisor writes them; nullopt for anything else.
std::optional<ParsedAdvisoryEvent> parse_advisory_event(std::string_view text) {
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  ParsedAdvisoryEvent p;
  const std::string_view head = text.substr(0, space);
  if (head != "cleared") {
    p.severity = severity_named(head);
    if (!p.severity) return std::nullopt;
  }
  std::string_view rest = text.substr(space + 1);
  const std::size_t colon = rest.find(": ");
  if (colon != std::string_view::npos) {
    p.summary = std::string(rest.substr(colon + 2));
    rest = rest.substr(0, colon);
  }
  if (const std::size_t gpu = rest.find(" GPU "); gpu != std::string_view::npos) {
    const std::string_view digits = rest.substr(gpu + 5);
    int index = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
    p.ref.device_index = index;
    rest = rest.substr(0, gpu);
  }
  if (rest.empty() || rest.find(' ') != std::string_view::npos) return std::nullopt;
  p.ref.id = std::string(rest);
  return p;
}

}  // namespace

std::string advisory_event_message(const AdvisoryChange& change) {
  const Advisory& a = change.advisory;
  const std::string gpu = a.device_index ? fmt::format(" GPU {}", *a.device_index) : std::string();
  if (change.kind == ChangeKind::Cleared) return fmt::format("cleared {}{}", a.id, gpu);
  return fmt::format("{} {}{}: {}", to_string(a.severity), a.id, gpu, a.summary);
}

std::vector<RecordedAdvisory> recorded_advisories(const std::vector<Event>& events, std::int64_t end_mono_ns) {
  return recorded_advisories(events, std::numeric_limits<std::int64_t>::min(), end_mono_ns);
}

std::vector<RecordedAdvisory> recorded_advisories(const std::vector<Event>& events, std::int64_t begin_mono_ns,
                                                  std::int64_t end_mono_ns) {
  // Time raised from `since` to `until`, within the range counted.
  const auto counted_s = [&](std::int64_t since, std::int64_t until) {
    const std::int64_t from = std::max(since, begin_mono_ns);
    const std::int64_t to = std::min(until, end_mono_ns);
    return to > from ? static_cast<double>(to - from) / 1e9 : 0.0;
  };
  struct Open {
    RecordedAdvisory recorded;
    std::optional<std::int64_t> since_ns;  // raised now, since then
  };
  std::vector<Open> seen;  // in the order first raised
  for (const Event& e : events) {
    if (e.kind != kAdvisoryEventKind) continue;
    const auto parsed = parse_advisory_event(e.message);
    if (!parsed) continue;
    auto it = std::find_if(seen.begin(), seen.end(), [&](const Open& o) {
      return o.recorded.advisory.id == parsed->ref.id && o.recorded.advisory.device_index == parsed->ref.device_index;
    });
    if (!parsed->severity) {
      if (it != seen.end() && it->since_ns) {
        it->recorded.raised_s += counted_s(*it->since_ns, e.time.mono_ns);
        it->since_ns.reset();
      }
      continue;
    }
    if (it == seen.end()) {
      Advisory a;
      a.id = parsed->ref.id;
      a.device_index = parsed->ref.device_index;
      a.severity = *parsed->severity;
      it = seen.insert(seen.end(), Open{{std::move(a), 0}, std::nullopt});
    }
    Advisory& a = it->recorded.advisory;
    if (static_cast<int>(*parsed->severity) > static_cast<int>(a.severity)) a.severity = *parsed->severity;
    a.summary = parsed->summary;
    if (!it->since_ns) it->since_ns = e.time.mono_ns;
  }
  std::vector<RecordedAdvisory> out;
  for (Open& o : seen) {
    if (o.since_ns) o.recorded.raised_s += counted_s(*o.since_ns, end_mono_ns);
    out.push_back(std::move(o.recorded));
  }
  return out;
}

}  // namespace gpuwatch
