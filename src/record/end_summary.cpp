#include "record/end_summary.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <exception>

#include <fmt/format.h>

#include "runs/run_status_window.h"
#include "render/report.h"

namespace gpuwatch {

std::string judge_finished_run(Store& store, const RunInfo& run, RunReport& report, const AdvisorConfig& config) {
  try {
    // The finished run's verdict, the one `status RUN` gives afterwards.
    const RunVerdict verdict = stored_run_verdict(run, [&](const LoadOptions& o) { return store.load(run, o); },
                                                  config, stored_run_end_mono_ns(run));
    report.verdict = verdict.word;
    report.advisories = verdict.advisories;
    return {};
  } catch (const std::exception& e) {
    return fmt::format("(no advisories: {})\n", e.what());
  }
}

std::string end_summary(const RunReport& report, const std::string& note, std::size_t terminal_columns) {
  return render_report_summary(report, report.advisories, terminal_columns) + note;
}

std::size_t terminal_columns(std::FILE* out) {
  winsize size{};
  if (::isatty(fileno(out)) == 0 || ::ioctl(fileno(out), TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

}  // namespace gpuwatch
