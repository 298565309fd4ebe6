// `gpuwatch status` as a few lines of text, or JSON for agents (docs/status.md).
#pragma once

#include <string>

#include "analysis/run_status.h"

namespace gpuwatch {

// 2: the GPU index is "gpu" (docs/report-json.md, "Changed in schema_version 2").
inline constexpr int kStatusSchemaVersion = 2;

std::string render_run_status_text(const RunStatusReport& s);
std::string render_run_status_json(const RunStatusReport& s);

}  // namespace gpuwatch
