// `gpuwatch devices`: static facts and which metrics each GPU answers.
#pragma once

#include <string>

#include "backends/backend.h"

namespace gpuwatch {

std::string render_devices_text(const BackendSet& set);
std::string render_devices_json(const BackendSet& set);

}  // namespace gpuwatch
