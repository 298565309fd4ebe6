// What `record` prints at its end: the short summary (render/report.h) with
// the finished run's verdict (stored_run_verdict(): the whole run and the
// advisories raised while recording), the one `gpuwatch status RUN` gives,
// so that the two never disagree.
#pragma once

#include <cstddef>
#include <cstdio>
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
// `terminal_columns`: the width of the terminal it is printed on, where the
// advisories are given whole and folded (0: not a terminal, each shortened
// to one line of kSummaryWidth, the full text a command away).
std::string end_summary(const RunReport& report, const std::string& note, std::size_t terminal_columns);

// The width of the terminal `out` is, or 0 when it is none.
std::size_t terminal_columns(std::FILE* out);

}  // namespace gpuwatch
