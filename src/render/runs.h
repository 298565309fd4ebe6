// `gpuwatch runs`: one line per stored run.
#pragma once

#include <string>
#include <vector>

#include "core/run.h"
#include "render/output_format.h"

namespace gpuwatch {

// 2: an object {"schema_version", "runs": [...]}; 1 was the bare array
// (docs/report-json.md, "Changed in schema_version 2").
inline constexpr int kRunsJsonSchemaVersion = 2;

std::string render_runs_text(const std::vector<RunInfo>& runs);
std::string render_runs_json(const std::vector<RunInfo>& runs);
// In `format`: text or json (any other: text).
std::string render_runs(const std::vector<RunInfo>& runs, OutputFormat format);

}  // namespace gpuwatch
