// One GPU on the top screen: a panel (title, clocks and link, history graphs
// of utilization, memory, power and temperature) or, when space is short, a
// single line. Graphs are drawn in the GPU's colour (gpu_style()); values in
// the colour of their severity (docs/top.md: the thresholds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/sample.h"
#include "core/live_snapshot.h"
#include "render/top/screen.h"

namespace gpuwatch {

// How tall a panel's graphs are, and whether they have axes: a value scale
// left of each graph, its name and value above it and a time axis under it
// (where the screen has room for graphs of kAxesFromRows rows and more).
struct PanelShape {
  std::size_t graph_rows = 1;
  bool axes = false;
  double interval_s = 1;  // seconds per column until the GPU has two samples
};
inline constexpr std::size_t kAxesFromRows = 3;

// Lines of a panel: a title, a line of details, and two rows of two graphs.
inline constexpr std::size_t panel_height(const PanelShape& shape) {
  return 2 + 2 * shape.graph_rows + (shape.axes ? 4 : 0);
}
// Without axes.
inline constexpr std::size_t panel_height(std::size_t graph_rows) { return panel_height(PanelShape{graph_rows}); }

// `device` may be null: the GPU has not been sampled yet.
std::vector<ScreenLine> gpu_panel(const DeviceInfo& info, const LiveDevice* device, std::int64_t now_mono_ns,
                                  std::size_t width, const PanelShape& shape = {});

ScreenLine gpu_line(const DeviceInfo& info, const LiveDevice* device, std::int64_t now_mono_ns, std::size_t width);

// "NVIDIA H100 80GB HBM3" -> "H100 80GB HBM3": the vendor is in the panel's
// other words, and columns are short.
std::string short_gpu_name(const std::string& name);

}  // namespace gpuwatch
