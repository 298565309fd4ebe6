// One GPU on the top screen: a panel (title, clocks and link, history graphs
// of utilization, memory, power and temperature) or, when space is short, a
// single line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/sample.h"
#include "core/live_snapshot.h"
#include "render/top/screen.h"

namespace gpuwatch {

// Lines of a panel with `graph_rows` rows per graph: 2 + 2 * graph_rows.
inline constexpr std::size_t panel_height(std::size_t graph_rows) { return 2 + 2 * graph_rows; }

// `device` may be null: the GPU has not been sampled yet.
std::vector<ScreenLine> gpu_panel(const DeviceInfo& info, const LiveDevice* device, std::int64_t now_mono_ns,
                                  std::size_t width, std::size_t graph_rows = 1);

ScreenLine gpu_line(const DeviceInfo& info, const LiveDevice* device, std::int64_t now_mono_ns, std::size_t width);

// "NVIDIA H100 80GB HBM3" -> "H100 80GB HBM3": the vendor is in the panel's
// other words, and columns are short.
std::string short_gpu_name(const std::string& name);

}  // namespace gpuwatch
