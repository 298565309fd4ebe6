// The page around the panels: title and subtitle at the top, the legend in
// its own band under them, and a grid of cells for the panels.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "render/plot/canvas.h"
#include "render/plot/legend.h"

namespace gpuwatch::plot {

struct Page {
  Rect body;  // what is left for the panels
  std::vector<LegendItem> legend;
};
Page draw_page(Canvas& canvas, std::string_view title, std::string_view subtitle,
               std::span<const LegendEntry> legend);

struct GridShape {
  std::size_t rows = 1;
  std::size_t cols = 1;
};
// Seed 001's layout for one panel per GPU: 1 → 1×1, 2 → 1×2, 4 → 2×2,
// 6 → 2×3, 8 → 2×4; counts between take the next larger; past 8, rows of 4.
GridShape seed_grid(std::size_t panels);

// Cells row by row. col_weights: relative column widths (empty: equal).
std::vector<Rect> grid_cells(const Rect& body, GridShape shape, std::span<const double> col_weights = {});

}  // namespace gpuwatch::plot
