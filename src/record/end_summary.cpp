#include "record/end_summary.h"

#include <exception>

#include <fmt/format.h>

#include "record/run_status_window.h"
#include "render/report.h"

namespace gpuwatch {

std::string end_summary(Store& store, const RunInfo& run, const RunReport& report, const AdvisorConfig& config) {
  std::vector<Advisory> advisories;
  std::string note;
  try {
    // The finished run's verdict, the one `status RUN` gives afterwards.
    advisories = stored_run_verdict(run, [&](const LoadOptions& o) { return store.load(run, o); }, config,
                                    stored_run_end_mono_ns(run))
                     .advisories;
  } catch (const std::exception& e) {
    note = fmt::format("(no advisories: {})\n", e.what());
  }
  return render_report_summary(report, advisories) + note;
}

}  // namespace gpuwatch
