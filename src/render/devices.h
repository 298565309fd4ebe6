// `gpuwatch devices`: static facts and which metrics each GPU answers.
#pragma once

#include <string>
#include <vector>

#include "core/sample.h"
#include "render/output_format.h"

namespace gpuwatch {

// Changes only on an incompatible change; fields may be added without one.
inline constexpr int kDevicesJsonSchemaVersion = 2;

// The devices as the backends found them (global indices), and one note per
// backend that found nothing and why: plain values, so that render/ never
// holds an open driver.
std::string render_devices_text(const std::vector<DeviceInfo>& devices, const std::vector<std::string>& notes);
std::string render_devices_json(const std::vector<DeviceInfo>& devices, const std::vector<std::string>& notes);
// In `format`: text or json (any other: text).
std::string render_devices(const std::vector<DeviceInfo>& devices, const std::vector<std::string>& notes,
                           OutputFormat format);

}  // namespace gpuwatch
