// `gpuwatch devices`: static facts and which metrics each GPU answers.
#pragma once

#include <string>

#include "backends/backend.h"
#include "render/output_format.h"

namespace gpuwatch {

// Changes only on an incompatible change; fields may be added without one.
inline constexpr int kDevicesJsonSchemaVersion = 2;

std::string render_devices_text(const BackendSet& set);
std::string render_devices_json(const BackendSet& set);
// In `format`: text or json (any other: text).
std::string render_devices(const BackendSet& set, OutputFormat format);

}  // namespace gpuwatch
