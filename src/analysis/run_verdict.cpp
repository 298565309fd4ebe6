#include "analysis/run_verdict.h"

#include <algorithm>

#include "analysis/advisor/causes.h"

namespace gpuwatch {

namespace {

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
  // Only what the live advisor said in the run's steady part counts: while
  // its window held the job's start (before warmup_s + window_s) or its end
  // (the last window_s), a DDP job's start-up and teardown read as idle GPUs
  // with a busy host (util.input_bound, seen on 2 x H200); the whole-run
  // judgement covers those stretches itself.
  const std::int64_t start_ns = whole.run.start_mono_ns;
  const std::int64_t end_mono_ns = start_ns + static_cast<std::int64_t>(age_s * 1e9);
  const std::int64_t steady_from_ns = start_ns + static_cast<std::int64_t>((config.warmup_s + config.window_s) * 1e9);
  const std::int64_t steady_until_ns = end_mono_ns - static_cast<std::int64_t>(config.window_s * 1e9);
  for (RecordedAdvisory& r : recorded_advisories(whole.events, steady_from_ns, steady_until_ns)) {
    if (r.raised_s < recorded_advisory_min_s(config)) continue;
    auto same = std::find_if(v.advisories.begin(), v.advisories.end(), [&](const Advisory& a) {
      return a.id == r.advisory.id && a.device_index == r.advisory.device_index;
    });
    if (same != v.advisories.end()) {
      // A consequence stays lowered: its cause is the headline.
      if (!same->explained_by && rank(r.advisory.severity) > rank(same->severity)) same->severity = r.advisory.severity;
      continue;
    }
    r.advisory.evidence.push_back({"raised_during_recording_s", r.raised_s, "seconds"});
    r.advisory.suggestion = "Raised while the run was recorded (`gpuwatch record --advise`); see the advisory "
                            "events in `gpuwatch report`.";
    v.advisories.push_back(std::move(r.advisory));
  }
  // Recorded ones join the causal model too: a cause explains them, or they
  // explain the whole run's (relate_causes() leaves links already made).
  relate_causes(v.advisories);
  order_advisories(v.advisories);
  v.word = verdict_word(v.advisories);
  return v;
}

}  // namespace gpuwatch
