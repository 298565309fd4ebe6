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
    const std::int64_t end_ns = run.start_mono_ns + run_ns;
    LoadOptions span;  // as status_over_windows reads it: the hang rule's stretch too
    span.since_mono_ns = end_ns - static_cast<std::int64_t>(advisor_span_s(config) * 1e9);
    const RunData hang_span = store.load(run, span);
    const RunData recent = advisor_window(hang_span, config, end_ns);
    advisories = advise(AdvisorInput{build_report(recent), recent, report.wall_duration_s, {}, &hang_span}, config);
  } catch (const std::exception& e) {
    note = fmt::format("(no advisories: {})\n", e.what());
  }
  return render_report_summary(report, advisories) + note;
}

}  // namespace gpuwatch
