// Renders a RunReport as text or Markdown for people, or as JSON for programs.
// The JSON schema is documented in docs/report-json.md; bump
// kReportSchemaVersion on any incompatible change.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "analysis/advisor/advisory.h"
#include "analysis/run_report.h"
#include "base/json_writer.h"
#include "render/output_format.h"

namespace gpuwatch {

inline constexpr int kReportSchemaVersion = 2;

// Text and Markdown leave out the events the recorder stores for itself
// (is_internal_event: job_gpus, advisor_config, ...) unless `full`
// (`report --full`); the JSON always has them.
std::string render_report_text(const RunReport& report, bool full = false);
std::string render_report_markdown(const RunReport& report, bool full = false);
std::string render_report_json(const RunReport& report);
// In `format`: text, json or markdown (any other: text).
std::string render_report(const RunReport& report, OutputFormat format, bool full = false);

// What `record` prints at its end unless --full: the outcome, a verdict
// ("ok", or the outcome and the verdict word with the advisory it names
// first: the same verdict `status` gives), a row per GPU (utilization
// mean, memory peak of total, power mean), energy, training progress, the
// top kSummaryItems advisories (then whole-run findings no advisory names),
// and the command for the full report. Bounded whatever the run: with more
// than kSummaryGpuRows GPUs, one row for all of them and the
// kSummaryLeastUsedRows least used; every line at most kSummaryWidth columns
// (names shortened at a word boundary). With `wrap_columns` (a terminal's
// width, record's end summary), the advisories are given whole and every
// line of prose wider than that is folded, nothing cut (the GPU table is
// left whole).
inline constexpr std::size_t kSummaryGpuRows = 8;
inline constexpr std::size_t kSummaryLeastUsedRows = 3;
inline constexpr std::size_t kSummaryItems = 3;
inline constexpr std::size_t kSummaryWidth = 100;
std::string render_report_summary(const RunReport& report, std::span<const Advisory> advisories,
                                  std::size_t wrap_columns = 0);

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
