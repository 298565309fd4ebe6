#include "render/plot/style.h"

#include "core/gpu_palette.h"

namespace gpuwatch::plot {

namespace {
constexpr double kSeriesDash[] = {7, 3};
}  // namespace

// The palette is core/gpu_palette.h's: the top screen and the dashboard share it.
Rgb series_color(std::size_t i) { return rgb_hex(gpu_palette_rgb(i)); }

std::span<const double> series_dash(std::size_t i) {
  if (i < kGpuPaletteRgb.size()) return {};
  return kSeriesDash;
}

}  // namespace gpuwatch::plot
