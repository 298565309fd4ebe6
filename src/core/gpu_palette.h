// One colour per GPU index, the same wherever a GPU is drawn: the plots
// (render/plot/style.h), the top screen (top/terminal.cpp maps it to the
// terminal's colours) and the web dashboard. Okabe & Ito's colour-blind-safe
// set, most distinct first, with their yellow darkened to read on white.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace gpuwatch {

// 0xRRGGBB.
inline constexpr std::array<std::uint32_t, 8> kGpuPaletteRgb{
    0x0072B2,  // blue
    0xE69F00,  // orange
    0x009E73,  // bluish green
    0xD55E00,  // vermillion
    0xCC79A7,  // reddish purple
    0x56B4E9,  // sky blue
    0x000000,  // black
    0xB8A000,  // yellow, darkened
};

// The colour of series or GPU `i`; past the eighth the colours repeat (the
// plots dash the repeats).
constexpr std::uint32_t gpu_palette_rgb(std::size_t i) { return kGpuPaletteRgb[i % kGpuPaletteRgb.size()]; }

}  // namespace gpuwatch
