// Seed 004's one-line live view:
//   GPU: 85% | VRAM:12.3/24.0GB(51.2%) | CPU: 45.2% | RAM:18.4/64.0GB(28.8%)
// With several GPUs each gets its own parts, numbered: GPU0, VRAM0, GPU1, ...
// "GB" here is 2^30 bytes, as in the seed's script.
#pragma once

#include <string>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

std::string format_status_line(const std::vector<DeviceSample>& latest_per_gpu, const HostValues& host);

}  // namespace gpuwatch
