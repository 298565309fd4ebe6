// Colours, fonts and sizes shared by every plot, so that GPU 3 has the same
// colour in every picture and all pictures read alike.
#pragma once

#include <cstddef>
#include <span>

#include "render/plot/canvas.h"

namespace gpuwatch::plot {

// Okabe & Ito's colour-blind-safe set (core/gpu_palette.h), most distinct first, with their yellow
// darkened to read on white. Series past the eighth repeat the colours dashed.
Rgb series_color(std::size_t i);
std::span<const double> series_dash(std::size_t i);

namespace colors {
inline constexpr Rgb kText = rgb_hex(0x222222);
inline constexpr Rgb kMuted = rgb_hex(0x666666);
inline constexpr Rgb kAxis = rgb_hex(0x444444);
inline constexpr Rgb kGrid = rgb_hex(0xe3e3e3);
inline constexpr Rgb kReference = rgb_hex(0x888888);  // capacity, limits, CV bands
inline constexpr Rgb kEvent = rgb_hex(0x555555);
inline constexpr Rgb kNoData = rgb_hex(0x999999);
// The training's own curves (training_panel.h): told apart by dash too.
inline constexpr Rgb kTrain = rgb_hex(0x1b1b1b);
inline constexpr Rgb kVal = rgb_hex(0xb5651d);
inline constexpr Rgb kTest = rgb_hex(0x6a3d9a);
}  // namespace colors

namespace fonts {
inline constexpr Font kTitle{20, true};
inline constexpr Font kSubtitle{13, false};
inline constexpr Font kPanelTitle{14, true};
inline constexpr Font kAxisTitle{13, false};
inline constexpr Font kTick{12, false};
inline constexpr Font kLegend{13, false};
inline constexpr Font kNote{12, false};
}  // namespace fonts

inline constexpr double kMargin = 16;      // around the whole picture
inline constexpr double kGap = 8;          // between neighbouring pieces of text
inline constexpr double kLineWidth = 1.6;  // data lines
inline constexpr double kDashed[] = {5, 4};
inline constexpr double kDotted[] = {2, 3};

}  // namespace gpuwatch::plot
