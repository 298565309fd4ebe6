// One verdict for one run, whoever asks: `record`'s end summary, `status`,
// `report`, `top`, `serve` and the exporter all call run_verdict() (a
// finished run) or the advisor over the sliding window (a live one), and
// only render what comes back. docs/advisor.md, "One verdict per run",
// states the rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/advisor/advisor.h"
#include "analysis/advisor/advisory.h"
#include "analysis/advisor/config.h"
#include "analysis/advisor/recorded.h"
#include "analysis/run_report.h"
#include "core/run.h"

namespace gpuwatch {

// The event `record` stores at a run's start: the advisor config it judged
// the run with, as format_advisor_config() writes it. Events travel with the
// run (store, jsonl export and import), so the config does too.
inline constexpr std::string_view kAdvisorConfigEventKind = "advisor_config";

// The config the run was recorded with (its last advisor_config event);
// nullopt when it has none (recorded before, imported from a seed file) or
// the text does not parse.
std::optional<AdvisorConfig> recorded_advisor_config(const std::vector<Event>& events);

// What a reader judges the run with: `given` when the user named a config
// (--advisor-config, --model-size), else the run's own, else `fallback`
// (the user's config file or the defaults).
AdvisorConfig advisor_config_for_run(const std::vector<Event>& events, const AdvisorConfig& fallback, bool given);

// A recorded advisory counts in a finished run's verdict when it was raised
// at least this long: half the advisor's window (30 s by default). A shorter
// one was a passing moment the window itself had already dropped.
double recorded_advisory_min_s(const AdvisorConfig& config);

struct RunVerdict {
  std::string word = "ok";  // "ok" (nothing to act on), else the highest severity
  std::vector<Advisory> advisories;  // causes first, then most severe first
};

// The verdict word of a list of advisories: "ok" when empty, else the
// highest severity among them ("info", "warning", "critical").
std::string verdict_word(const std::vector<Advisory>& advisories);

// A finished run's verdict: advise() over the whole run (`whole`, its
// report, every epoch), merged with the advisories recorded during the run
// that were raised for at least recorded_advisory_min_s() while the live
// window held neither the job's start nor its end; an advisory
// found both ways keeps the whole run's numbers at the higher severity;
// then the causal model relates them all (analysis/advisor/causes.h).
RunVerdict finished_run_verdict(const RunData& whole, const RunReport& whole_report, double age_s,
                                const AdvisorConfig& config);

// A finished run too long to hold in memory, as the advisor reads it then
// (AdvisorInput::columns): its samples stay in the store.
struct ColumnRun {
  const RunData& base;       // the run, its events and processes, devices' facts without samples
  const RunData& end_span;   // its last advisor_span_s() of samples, wall clock included
  const DeviceColumns& columns;
  std::int64_t first_sample_ns = 0;
  std::int64_t last_sample_ns = 0;
};
// The same verdict from `whole_report` (the run's report from its columns
// and rollups) and what the rules read on demand.
RunVerdict finished_run_verdict(const ColumnRun& run, const RunReport& whole_report, double age_s,
                                const AdvisorConfig& config);

}  // namespace gpuwatch
