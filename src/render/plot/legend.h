// The legend: a swatch and a label per entry, in rows that wrap to the
// width given and are centred. It lives in its own band outside every plot
// area, so it never covers data or other text.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "render/plot/canvas.h"

namespace gpuwatch::plot {

enum class Swatch { Line, Box, Marker, None };  // None: a key entry, text only

struct LegendEntry {
  std::string label;
  Rgb color;
  Swatch swatch = Swatch::Line;
  std::span<const double> dash;  // Line and Marker: dash pattern (static storage)
};

// Where an entry was drawn: tests look for its colour inside `swatch`.
struct LegendItem {
  LegendEntry entry;
  Rect swatch;
  Rect label;
};

// Height the entries need when wrapped to `width` (0 when there are none).
double legend_height(Canvas& canvas, std::span<const LegendEntry> entries, double width);
std::vector<LegendItem> draw_legend(Canvas& canvas, std::span<const LegendEntry> entries, const Rect& band);

}  // namespace gpuwatch::plot
