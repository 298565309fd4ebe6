// `gpuwatch status` as a few lines of text, or JSON for agents (docs/status.md).
#pragma once

#include <string>

#include "analysis/run_status.h"
#include "render/output_format.h"

namespace gpuwatch {

// 2: the GPU index is "gpu" (docs/report-json.md, "Changed in schema_version 2").
inline constexpr int kStatusSchemaVersion = 2;

std::string render_run_status_text(const RunStatusReport& s);
std::string render_run_status_json(const RunStatusReport& s);
// In `format`: text or json (any other: text).
std::string render_run_status(const RunStatusReport& s, OutputFormat format);

}  // namespace gpuwatch
