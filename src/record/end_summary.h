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

// `report` is the whole run's, already built. Reads the run from the
// store; if that fails the summary goes without advisories, with a note.
std::string end_summary(Store& store, const RunInfo& run, const RunReport& report, const AdvisorConfig& config);

}  // namespace gpuwatch
