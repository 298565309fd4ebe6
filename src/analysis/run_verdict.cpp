#include "analysis/run_verdict.h"

#include <algorithm>

#include "analysis/advisor/causes.h"

namespace gpuwatch {

namespace {

int rank(Severity s) { return static_cast<int>(s); }

// A run the recorder stopped for the advisor's verdict (`--on-hang kill`,
// `--on-underuse kill`): the advisories raised when it was stopped are why,
// however short before the end they came (job.hung comes hang_after_s into
// a hang, the kill --after S later: all of it in the run's last window; the
// teardown may clear it before the run ends). Each with its whole time raised.
std::vector<RecordedAdvisory> why_stopped(const RunData& whole, std::int64_t end_mono_ns) {
  std::vector<RecordedAdvisory> out;
  const std::string& reason = whole.run.end_reason;
  if (reason != "hung" && reason != "underuse") return out;
  // The recorder's own event, "stopped by --on-hang kill: ...", of kind "hung".
  const auto stop = std::find_if(whole.events.rbegin(), whole.events.rend(), [&](const Event& e) {
    return e.kind == reason && e.message.starts_with("stopped by");
  });
  const std::int64_t stopped_ns = stop == whole.events.rend() ? end_mono_ns : stop->time.mono_ns;
  const std::vector<RecordedAdvisory> then = recorded_advisories(whole.events, stopped_ns - 1, stopped_ns);
  for (RecordedAdvisory& r : recorded_advisories(whole.events, end_mono_ns)) {
    const bool raised_then = std::any_of(then.begin(), then.end(), [&](const RecordedAdvisory& e) {
      return e.raised_s > 0 && e.advisory.id == r.advisory.id && e.advisory.device_index == r.advisory.device_index;
    });
    if (raised_then) out.push_back(std::move(r));
  }
  return out;
}

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

namespace {

// The whole run's advisories (`v`) merged with those recorded in `whole`'s events.
RunVerdict with_recorded(RunVerdict v, const RunData& whole, double age_s, const AdvisorConfig& config) {
  // Only what the live advisor said in the run's steady part counts: while
  // its window held the job's start (before warmup_s + window_s) or its end
  // (the last window_s), a DDP job's start-up and teardown read as idle GPUs
  // with a busy host (util.input_bound, seen on 2 x H200); the whole-run
  // judgement covers those stretches itself.
  const std::int64_t start_ns = whole.run.start_mono_ns;
  const std::int64_t end_mono_ns = start_ns + static_cast<std::int64_t>(age_s * 1e9);
  const std::int64_t steady_from_ns = start_ns + static_cast<std::int64_t>((config.warmup_s + config.window_s) * 1e9);
  const std::int64_t steady_until_ns = end_mono_ns - static_cast<std::int64_t>(config.window_s * 1e9);
  const std::vector<RecordedAdvisory> stopped_for = why_stopped(whole, end_mono_ns);
  for (RecordedAdvisory& r : recorded_advisories(whole.events, steady_from_ns, steady_until_ns)) {
    const auto why = std::find_if(stopped_for.begin(), stopped_for.end(), [&](const RecordedAdvisory& w) {
      return w.advisory.id == r.advisory.id && w.advisory.device_index == r.advisory.device_index;
    });
    if (why != stopped_for.end()) {
      r.raised_s = why->raised_s;
    } else if (r.raised_s < recorded_advisory_min_s(config)) {
      continue;
    }
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

}  // namespace

RunVerdict finished_run_verdict(const RunData& whole, const RunReport& whole_report, double age_s,
                                const AdvisorConfig& config) {
  const std::vector<EpochPeak> epochs = epoch_peaks(whole);
  RunVerdict v;
  v.advisories = advise(AdvisorInput{whole_report, whole, age_s, epochs}, config);
  return with_recorded(std::move(v), whole, age_s, config);
}

RunVerdict finished_run_verdict(const ColumnRun& run, const RunReport& whole_report, double age_s,
                                const AdvisorConfig& config) {
  const std::vector<EpochPeak> epochs = epoch_peaks(run.base, run.columns, run.last_sample_ns);
  AdvisorInput in{whole_report, run.base, age_s, epochs, &run.end_span};
  in.columns = &run.columns;
  in.first_sample_ns = run.first_sample_ns;
  RunVerdict v;
  v.advisories = advise(in, config);
  return with_recorded(std::move(v), run.base, age_s, config);
}

}  // namespace gpuwatch
