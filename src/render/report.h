// Renders a RunReport as text or Markdown for people, or as JSON for programs.
// The JSON schema is documented in docs/report-json.md; bump
// kReportSchemaVersion on any incompatible change.
#pragma once

#include <string>
#include <vector>

#include "analysis/run_report.h"
#include "render/json_writer.h"

namespace gpuwatch {

inline constexpr int kReportSchemaVersion = 1;

std::string render_report_text(const RunReport& report);
std::string render_report_markdown(const RunReport& report);
std::string render_report_json(const RunReport& report);

// One line, e.g. "exit 0", "killed by signal 9 (SIGKILL)", "recording".
std::string describe_outcome(const RunInfo& run);

// Which GPUs were the job's and why, e.g. "1, 3 (where the command's
// processes ran); also recorded, not judged: 0, 2". Empty when the run does
// not say (recorded before gpuwatch tracked it, or imported).
// `recorded`: the run's GPU indices.
std::string describe_job_gpus(const JobGpus& job, const RunInfo& run, const std::vector<int>& recorded);

// "job_gpus": {"source": ..., "gpus": [...]}, or null when unknown.
void write_job_gpus_json(JsonWriter& w, const JobGpus& job);

}  // namespace gpuwatch
