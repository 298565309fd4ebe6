#include "analysis/run_verdict.h"

#include <algorithm>
#include <charconv>

#include "analysis/advisor/causes.h"

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

int rank(Severity s) { return static_cast<int>(s); }

}  // namespace

std::optional<AdvisorConfig> recorded_advisor_config(const std::vector<Event>& events) {
  const auto it = std::find_if(events.rbegin(), events.rend(),
                               [](const Event& e) { return e.kind == kAdvisorConfigEventKind; });
  if (it == events.rend()) return std::nullopt;
  try {
    return parse_advisor_config(it->message);
  } catch (const AdvisorConfigError&) {
    return std::nullopt;  // a newer gpuwatch's keys: judge with the reader's own
  }
}

AdvisorConfig advisor_config_for_run(const std::vector<Event>& events, const AdvisorConfig& fallback, bool given) {
  if (given) return fallback;
  return recorded_advisor_config(events).value_or(fallback);
}

std::vector<RecordedAdvisory> recorded_advisories(const std::vector<Event>& events, std::int64_t end_mono_ns) {
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
        it->recorded.raised_s += static_cast<double>(e.time.mono_ns - *it->since_ns) / 1e9;
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
    if (rank(*parsed->severity) > rank(a.severity)) a.severity = *parsed->severity;
    a.summary = parsed->summary;
    if (!it->since_ns) it->since_ns = e.time.mono_ns;
  }
  std::vector<RecordedAdvisory> out;
  for (Open& o : seen) {
    if (o.since_ns) o.recorded.raised_s += static_cast<double>(std::max(end_mono_ns, *o.since_ns) - *o.since_ns) / 1e9;
    out.push_back(std::move(o.recorded));
  }
  return out;
}

double recorded_advisory_min_s(const AdvisorConfig& config) { return config.window_s / 2; }

std::string verdict_word(const std::vector<Advisory>& advisories) {
  if (advisories.empty()) return "ok";
  const auto worst = std::max_element(advisories.begin(), advisories.end(),
                                      [](const Advisory& a, const Advisory& b) { return rank(a.severity) < rank(b.severity); });
  return std::string(to_string(worst->severity));
}

RunVerdict finished_run_verdict(const RunData& whole, const RunReport& whole_report, double age_s,
                                const AdvisorConfig& config) {
  const std::vector<EpochPeak> epochs = epoch_peaks(whole);
  RunVerdict v;
  v.advisories = advise(AdvisorInput{whole_report, whole, age_s, epochs}, config);
  const std::int64_t end_mono_ns = whole.run.start_mono_ns + static_cast<std::int64_t>(age_s * 1e9);
  for (RecordedAdvisory& r : recorded_advisories(whole.events, end_mono_ns)) {
    if (r.raised_s < recorded_advisory_min_s(config)) continue;
    auto same = std::find_if(v.advisories.begin(), v.advisories.end(), [&](const Advisory& a) {
      return a.id == r.advisory.id && a.device_index == r.advisory.device_index;
    });
    if (same != v.advisories.end()) {
      // A consequence stays lowered: its cause is the headline.
      if (!same->explained_by && rank(r.advisory.severity) > rank(same->severity)) same->severity = r.advisory.severity;
      continue;
    }
    r.advisory.action = std::string(next_action(r.advisory.id));
    r.advisory.evidence.push_back({"raised_during_recording_s", r.raised_s, "seconds"});
    r.advisory.suggestion = "Raised while the run was recorded (`gpuwatch record --advise`); see the advisory "
                            "events in `gpuwatch report`.";
    v.advisories.push_back(std::move(r.advisory));
  }
  order_advisories(v.advisories);
  v.word = verdict_word(v.advisories);
  return v;
}

}  // namespace gpuwatch
