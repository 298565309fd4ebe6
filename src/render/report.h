// Renders a RunReport as text or Markdown for people, or as JSON for programs.
// The JSON schema is documented in docs/report-json.md; bump
// kReportSchemaVersion on any incompatible change.
#pragma once

#include <string>

#include "analysis/run_report.h"

namespace gpuwatch {

inline constexpr int kReportSchemaVersion = 1;

std::string render_report_text(const RunReport& report);
std::string render_report_markdown(const RunReport& report);
std::string render_report_json(const RunReport& report);

// One line, e.g. "exit 0", "killed by signal 9 (SIGKILL)", "recording".
std::string describe_outcome(const RunInfo& run);

}  // namespace gpuwatch
