// `gpuwatch runs`: one line per stored run.
#pragma once

#include <string>
#include <vector>

#include "core/run.h"

namespace gpuwatch {

std::string render_runs_text(const std::vector<RunInfo>& runs);
std::string render_runs_json(const std::vector<RunInfo>& runs);

}  // namespace gpuwatch
