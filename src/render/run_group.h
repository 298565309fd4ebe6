// Renders the consolidated summary of a group of runs (analysis/run_group.h)
// as text (fits 100 columns), JSON (schema in docs/compare.md; bump
// kRunGroupSchemaVersion on an incompatible change) or markdown.
#pragma once

#include <string>
#include <string_view>

#include "analysis/run_group.h"
#include "render/output_format.h"

namespace gpuwatch {

inline constexpr int kRunGroupSchemaVersion = 1;

std::string render_run_group_text(const RunGroup& group);
std::string render_run_group_json(const RunGroup& group);
std::string render_run_group_markdown(const RunGroup& group);
// In `format`: text, json or markdown (any other: text).
std::string render_run_group(const RunGroup& group, OutputFormat format);

}  // namespace gpuwatch
