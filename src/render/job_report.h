// Renders a job across nodes (analysis/job_report.h, `report --job ID`) as
// text (fits 100 columns), markdown or JSON (schema in
// docs/report-json.md; bump kJobReportSchemaVersion on an incompatible
// change).
#pragma once

#include <string>
#include <string_view>

#include "analysis/job_report.h"

namespace gpuwatch {

inline constexpr int kJobReportSchemaVersion = 2;

std::string render_job_report_text(const JobReport& job);
std::string render_job_report_markdown(const JobReport& job);
std::string render_job_report_json(const JobReport& job);
// By format name: "text", "json" or "markdown" (anything else: text).
std::string render_job_report(const JobReport& job, std::string_view format);

}  // namespace gpuwatch
