#include "record/end_summary.h"

#include <exception>

#include <fmt/format.h>

#include "analysis/advisor/advisor.h"
#include "render/report.h"

namespace gpuwatch {

std::string end_summary(Store& store, const RunInfo& run, const RunReport& report, const AdvisorConfig& config) {
  std::vector<Advisory> advisories;
  std::string note;
  try {
    const auto run_ns = static_cast<std::int64_t>(report.wall_duration_s * 1e9);
    LoadOptions window;
    window.since_mono_ns = run.start_mono_ns + run_ns - static_cast<std::int64_t>(config.window_s * 1e9);
    const RunData recent = store.load(run, window);
    advisories = advise(AdvisorInput{build_report(recent), recent, report.wall_duration_s, {}}, config);
  } catch (const std::exception& e) {
    note = fmt::format("(no advisories: {})\n", e.what());
  }
  return render_report_summary(report, advisories) + note;
}

}  // namespace gpuwatch
