// `gpuwatch devices`: static facts and which metrics each GPU answers.
#pragma once

#include <string>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

// Changes only on an incompatible change; fields may be added without one.
inline constexpr int kDevicesJsonSchemaVersion = 2;

// The devices as the backends found them (global indices), and one note per
// backend that found nothing and why: plain values, so that render/ never
// holds an open driver.
std::string render_devices_text(const std::vector<DeviceInfo>& devices, const std::vector<std::string>& notes);
std::string render_devices_json(const std::vector<DeviceInfo>& devices, const std::vector<std::string>& notes);

}  // namespace gpuwatch
