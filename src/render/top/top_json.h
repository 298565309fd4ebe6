// `top --once --format json`: one snapshot for scripts and agents. Metric
// keys are the catalogue's names and units (as in `sample --format jsonl`);
// slow metrics carry their age.
#pragma once

#include <string>

#include "render/top/top_view.h"

namespace gpuwatch {

inline constexpr int kTopJsonSchemaVersion = 2;

std::string render_top_json(const TopView& view);

}  // namespace gpuwatch
