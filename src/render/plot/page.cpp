#include "render/plot/page.h"

#include <algorithm>
#include <numeric>

#include "render/plot/style.h"

namespace gpuwatch::plot {

namespace {
constexpr double kColumnGap = 28;
constexpr double kRowGap = 18;
}  // namespace

Page draw_page(Canvas& canvas, std::string_view title, std::string_view subtitle,
               std::span<const LegendEntry> legend) {
  const double width = canvas.width() - 2 * kMargin;
  const double center = canvas.width() / 2;
  double y = kMargin;
  y = canvas.text(canvas.fit(title, width, fonts::kTitle), center, y, HAlign::Center, VAlign::Top, fonts::kTitle,
                  colors::kText)
          .bottom();
  if (!subtitle.empty()) {
    y = canvas.text(canvas.fit(subtitle, width, fonts::kSubtitle), center, y + kGap / 2, HAlign::Center, VAlign::Top,
                    fonts::kSubtitle, colors::kMuted)
            .bottom();
  }
  Page page;
  y += kGap;
  const double legend_h = legend_height(canvas, legend, width);
  if (legend_h > 0) {
    page.legend = draw_legend(canvas, legend, {kMargin, y, width, legend_h});
    y += legend_h + kGap;
  }
  page.body = {kMargin, y, width, std::max(1.0, canvas.height() - kMargin - y)};
  return page;
}

GridShape seed_grid(std::size_t panels) {
  if (panels <= 1) return {1, 1};
  if (panels == 2) return {1, 2};
  if (panels <= 8) return {2, (panels + 1) / 2};
  return {(panels + 3) / 4, 4};
}

std::vector<Rect> grid_cells(const Rect& body, GridShape shape, std::span<const double> col_weights) {
  std::vector<double> weights(col_weights.begin(), col_weights.end());
  weights.resize(shape.cols, 1.0);
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  const double free_w = std::max(1.0, body.w - kColumnGap * static_cast<double>(shape.cols - 1));
  const double cell_h =
      std::max(1.0, (body.h - kRowGap * static_cast<double>(shape.rows - 1)) / static_cast<double>(shape.rows));
  std::vector<Rect> cells;
  for (std::size_t r = 0; r < shape.rows; ++r) {
    double x = body.x;
    for (std::size_t c = 0; c < shape.cols; ++c) {
      const double w = free_w * weights[c] / total;
      cells.push_back({x, body.y + static_cast<double>(r) * (cell_h + kRowGap), w, cell_h});
      x += w + kColumnGap;
    }
  }
  return cells;
}

}  // namespace gpuwatch::plot
