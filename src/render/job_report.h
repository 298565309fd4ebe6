// Renders a job across nodes (analysis/job_report.h, `report --job ID`) as
// text (fits 100 columns), markdown or JSON (schema in
// docs/report-json.md; bump kJobReportSchemaVersion on an incompatible
// change).
#pragma once

#include <string>
#include <string_view>

#include "analysis/job_report.h"
#include "render/output_format.h"

namespace gpuwatch {

inline constexpr int kJobReportSchemaVersion = 2;

std::string render_job_report_text(const JobReport& job);
std::string render_job_report_markdown(const JobReport& job);
std::string render_job_report_json(const JobReport& job);
// In `format`: text, json or markdown (any other: text).
std::string render_job_report(const JobReport& job, OutputFormat format);

}  // namespace gpuwatch
