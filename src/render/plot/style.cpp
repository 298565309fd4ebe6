#include "render/plot/style.h"

#include <array>

namespace gpuwatch::plot {

namespace {
constexpr std::array<Rgb, 8> kPalette{
    rgb_hex(0x0072B2),  // blue
    rgb_hex(0xE69F00),  // orange
    rgb_hex(0x009E73),  // bluish green
    rgb_hex(0xD55E00),  // vermillion
    rgb_hex(0xCC79A7),  // reddish purple
    rgb_hex(0x56B4E9),  // sky blue
    rgb_hex(0x000000),  // black
    rgb_hex(0xB8A000),  // yellow, darkened
};
constexpr double kSeriesDash[] = {7, 3};
}  // namespace

Rgb series_color(std::size_t i) { return kPalette[i % kPalette.size()]; }

std::span<const double> series_dash(std::size_t i) {
  if (i < kPalette.size()) return {};
  return kSeriesDash;
}

}  // namespace gpuwatch::plot
