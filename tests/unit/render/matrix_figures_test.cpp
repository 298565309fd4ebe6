// The matrix's figures are checked in their pixels: a bar is as tall as its
// number says, panels follow seed 001's grid, the CV bars stand against the
// 5 / 10 / 20 % bands.
#include "render/plot/matrix_figures.h"

#include <cmath>
#include <memory>

#include <gtest/gtest.h>

#include "render/plot/kinds.h"
#include "render/plot/style.h"
#include "plot_pixels.h"

namespace gpuwatch::plot {
namespace {

using test_pixels::blend_on_white;
using test_pixels::Pixels;

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kBarAlpha = 0.85;  // draw_bars fills at this opacity

Spread spread(double mean, double lo, double hi) { return {2, mean, (hi - lo) / 2, lo, hi}; }

MatrixConfig config(std::string name, double mean_gib, std::vector<double> per_gpu_gib = {}) {
  MatrixConfig c;
  c.name = std::move(name);
  c.mem_used_mean = spread(mean_gib * kGiB, mean_gib * kGiB * 0.9, mean_gib * kGiB * 1.1);
  c.mem_used_peak = spread(mean_gib * kGiB * 1.5, mean_gib * kGiB * 1.4, mean_gib * kGiB * 1.6);
  for (const double g : per_gpu_gib) c.gpu_mem_mean.push_back(spread(g * kGiB, g * kGiB, g * kGiB));
  return c;
}

struct Drawn {
  std::unique_ptr<Canvas> canvas;
  PlotGeometry geometry;
};

Drawn draw(MatrixFigure figure, const std::vector<MatrixConfig>& configs) {
  const PlotSize size = matrix_figure_size(figure, configs.size());
  Drawn d{Canvas::image(size.width_px, size.height_px), {}};
  d.geometry = render_matrix_figure(*d.canvas, figure, configs, "test");
  return d;
}

// The top of the bar of category `i` (in its colour), scanning up from the
// axis' zero a little left of its whisker.
double bar_top(const Pixels& px, const PanelGeometry& panel, std::size_t i, Rgb color, double dx = -10) {
  const double x = panel.x_px(static_cast<double>(i)) + dx;
  const Rgb fill = blend_on_white(color, kBarAlpha);
  double y = panel.frame.py(0) - 2;
  EXPECT_TRUE(Pixels::close(px.at(x, y), fill)) << "no bar " << i << " at its base";
  while (y > panel.frame.area.y && Pixels::close(px.at(x, y - 1), fill)) --y;
  return y;
}

double bar_height(const Pixels& px, const PanelGeometry& panel, std::size_t i, Rgb color, double dx = -10) {
  return panel.frame.py(0) - bar_top(px, panel, i, color, dx);
}

TEST(MatrixFigures, MemoryBarsAreAsTallAsTheirNumbers) {
  const std::vector<MatrixConfig> configs = {config("optimizer=adamw,batch_size=128", 10),
                                             config("optimizer=sgd,batch_size=128", 20)};
  const Drawn d = draw(MatrixFigure::MemoryComparison, configs);
  ASSERT_EQ(d.geometry.panels.size(), 2U);  // mean, peak
  const Pixels px(*d.canvas);
  const PanelGeometry& mean = d.geometry.panels[0];
  const double a = bar_height(px, mean, 0, series_color(0));
  const double b = bar_height(px, mean, 1, series_color(1));
  EXPECT_NEAR(b / a, 2.0, 0.05);  // twice the memory, twice as tall
  EXPECT_NEAR(bar_top(px, mean, 1, series_color(1)), mean.y_px(20 * kGiB), 2);
  // Peak: 1.5 times the mean, on the same scale.
  const PanelGeometry& peak = d.geometry.panels[1];
  EXPECT_NEAR(bar_top(px, peak, 0, series_color(0)), peak.y_px(15 * kGiB), 2);
  EXPECT_DOUBLE_EQ(peak.y_px(kGiB), mean.y_px(kGiB));
  // Each configuration is named in the legend, numbered as under its bar.
  ASSERT_EQ(d.geometry.legend.size(), 2U);
  EXPECT_EQ(d.geometry.legend[1].entry.label, "#2 optimizer=sgd,batch_size=128");
  EXPECT_TRUE(px.any_in(d.geometry.legend[1].swatch, series_color(1)));
}

TEST(MatrixFigures, PerGpuPanelsFollowTheSeedGrid) {
  const std::vector<MatrixConfig> configs = {config("a=1", 8, {2, 4, 6, 8}), config("a=2", 8, {4, 8, 12, 16})};
  const Drawn d = draw(MatrixFigure::PerGpuMemory, configs);
  ASSERT_EQ(d.geometry.panels.size(), 4U);  // 2 x 2
  const auto& p = d.geometry.panels;
  EXPECT_DOUBLE_EQ(p[0].frame.area.y, p[1].frame.area.y);
  EXPECT_LT(p[0].frame.area.x, p[1].frame.area.x);
  EXPECT_GT(p[2].frame.area.y, p[0].frame.area.y);
  EXPECT_DOUBLE_EQ(p[2].frame.area.x, p[0].frame.area.x);
  const Pixels px(*d.canvas);
  for (std::size_t g = 0; g < 4; ++g) {
    EXPECT_NEAR(bar_height(px, p[g], 1, series_color(1)) / bar_height(px, p[g], 0, series_color(0)), 2.0, 0.06) << g;
  }
  // One shared scale: each bar's top where its number is on it.
  for (std::size_t g = 0; g < 4; ++g) {
    EXPECT_DOUBLE_EQ(p[g].frame.y.hi, p[0].frame.y.hi);
    EXPECT_NEAR(bar_top(px, p[g], 0, series_color(0)), p[g].y_px(2.0 * static_cast<double>(g + 1) * kGiB), 2) << g;
  }
}

TEST(MatrixFigures, LoadBalanceCvBarsStandAgainstTheBands) {
  // CV across the two GPUs: 0 for even memory, about 15 % and 40 % else.
  const std::vector<MatrixConfig> configs = {config("even", 20, {10, 10}), config("fair", 20, {8.5, 11.5}),
                                             config("poor", 20, {6, 14})};
  const Drawn d = draw(MatrixFigure::LoadBalance, configs);
  ASSERT_EQ(d.geometry.panels.size(), 2U);
  const Pixels px(*d.canvas);
  const PanelGeometry& memory = d.geometry.panels[0];
  const PanelGeometry& cv = d.geometry.panels[1];
  // Left: each GPU of a configuration a bar in that GPU's colour.
  EXPECT_TRUE(px.near(memory.x_px(2) - 30, memory.y_px(6 * kGiB) + 4, blend_on_white(series_color(0), kBarAlpha)));
  EXPECT_TRUE(px.near(memory.x_px(2) + 30, memory.y_px(14 * kGiB) + 4, blend_on_white(series_color(1), kBarAlpha)));
  // Right: the bands' dashed lines, and each CV bar where load_balance puts it.
  for (const double edge : {5.0, 10.0, 20.0}) {
    const Rect row{cv.frame.area.x, cv.y_px(edge) - 1, cv.frame.area.w, 3};
    EXPECT_TRUE(px.any_in(row, colors::kReference)) << edge;
  }
  for (std::size_t i = 1; i < configs.size(); ++i) {
    std::vector<double> means;
    for (const auto& s : configs[i].gpu_mem_mean) means.push_back(s->mean);
    const auto balance = load_balance(means);
    ASSERT_TRUE(balance);
    EXPECT_NEAR(bar_top(px, cv, i, detail::kCvColor, -5), cv.y_px(balance->cv_percent), 2) << i;
  }
  const double fair = bar_top(px, cv, 1, detail::kCvColor, -5);
  EXPECT_LT(fair, cv.y_px(10));  // above the 10 % line, below the 20 % one
  EXPECT_GT(fair, cv.y_px(20));
  EXPECT_LT(bar_top(px, cv, 2, detail::kCvColor, -5), cv.y_px(20));
}

TEST(MatrixFigures, NothingToDrawIsAnError) {
  MatrixConfig empty;
  empty.name = "a=1";
  const auto canvas = Canvas::image(800, 600);
  EXPECT_THROW(render_matrix_figure(*canvas, MatrixFigure::MemoryComparison, {}, ""), PlotError);
  EXPECT_THROW(render_matrix_figure(*canvas, MatrixFigure::PerGpuMemory, {&empty, 1}, ""), PlotError);
  EXPECT_EQ(matrix_figure_file(MatrixFigure::LoadBalance), "gpu_load_balance_analysis.png");
}

}  // namespace
}  // namespace gpuwatch::plot
