// What `record` prints at its end: the short summary (render/report.h) with
// the finished run's verdict (stored_run_verdict(): the whole run and the
// advisories raised while recording), the one `gpuwatch status RUN` gives,
// so that the two never disagree.
#pragma once

#include <string>

#include "analysis/advisor/config.h"
#include "analysis/run_report.h"
#include "store/store.h"

namespace gpuwatch {

// Sets report.verdict and report.advisories (`report` is the whole run's,
// already built), reading the run from the store. If that fails the report
// goes without them; the returned note says why (empty when it worked).
std::string judge_finished_run(Store& store, const RunInfo& run, RunReport& report, const AdvisorConfig& config);

// The short summary of a report judge_finished_run() judged, with its note.
std::string end_summary(const RunReport& report, const std::string& note);

}  // namespace gpuwatch
