#include "render/plot/matrix_figures.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/stats.h"
#include "core/derived_metrics.h"
#include "render/plot/kinds.h"
#include "render/plot/labels.h"
#include "render/plot/marks.h"
#include "render/plot/page.h"
#include "render/plot/style.h"

namespace gpuwatch::plot {

namespace {

using detail::panel_geometry;

constexpr double kBarHeadroom = 1.15;  // over the tallest whisker, for its label
constexpr std::string_view kRepeatsNote = "bars: mean over a configuration's repeats, whiskers: lowest and highest";

// "#1", "#2", ... under the bars.
XAxisSpec config_axis(std::size_t configs) {
  XAxisSpec x{XAxisSpec::Kind::Categories, 0, 1, false, {}, "Configuration (numbered as in the legend)"};
  for (std::size_t i = 0; i < configs; ++i) x.categories.push_back(fmt::format("#{}", i + 1));
  return x;
}

// "#1 optimizer=adamw,batch_size=128" in the configuration's colour.
std::vector<LegendEntry> config_entries(std::span<const MatrixConfig> configs, Swatch swatch) {
  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    entries.push_back({fmt::format("#{} {}", i + 1, configs[i].name), series_color(i), swatch, {}});
  }
  return entries;
}

std::string subtitle_with(std::string_view first, std::string_view rest) {
  return first.empty() ? std::string(rest) : fmt::format("{} \u00b7 {}", first, rest);
}

// Memory in one unit for every panel of a figure, from its largest value.
struct MemoryUnit {
  DisplayUnit unit;
  double top = 0;  // the highest whisker, shown units
  bool any = false;
};

void add_to(MemoryUnit& m, const std::optional<Spread>& s) {
  if (!s) return;
  m.top = std::max(m.top, s->max);
  m.any = true;
}

MemoryUnit finish(MemoryUnit m) {
  m.unit = display_unit("B", m.top);
  m.top /= m.unit.divisor;
  return m;
}

Bar spread_bar(const std::optional<Spread>& s, const DisplayUnit& unit, Rgb color) {
  if (!s) return value_bar(std::nullopt, std::nullopt, std::nullopt, color);
  return value_bar(s->mean / unit.divisor, s->min / unit.divisor, s->max / unit.divisor, color);
}

// The words of the memory panels: the catalogue's (core/metrics.h,
// core/derived_metrics.h).
constexpr std::string_view kMemoryUsed = info(DeviceMetric::MemUsedBytes).label;

PanelText memory_panel(std::string title, const MemoryUnit& m, std::string_view what) {
  PanelText t;
  t.title = std::move(title);
  t.y_title = axis_title(what, m.unit.symbol);
  t.y_title_short = m.unit.symbol;
  t.y_hi = std::max(m.top * kBarHeadroom, 1e-9);
  return t;
}

// Frames drawn, bars (of spread_bar) or a note in each, their geometry.
void draw_bar_panels(Canvas& canvas, std::span<const Frame> frames, std::span<const std::vector<Bar>> bars,
                     double divisor, PlotGeometry& geometry) {
  for (std::size_t i = 0; i < frames.size(); ++i) {
    draw_frame(canvas, frames[i]);
    if (std::any_of(bars[i].begin(), bars[i].end(), [](const Bar& b) { return b.whisker_hi.has_value(); })) {
      draw_bars(canvas, frames[i], bars[i]);
    } else {
      draw_note(canvas, frames[i], "no data: no configuration has a value");
    }
    geometry.panels.push_back(panel_geometry(frames[i], divisor));
  }
}

PlotGeometry draw_memory_comparison(Canvas& canvas, std::span<const MatrixConfig> configs, std::string_view subtitle) {
  MemoryUnit m;
  for (const MatrixConfig& c : configs) {
    add_to(m, c.mem_used_mean);
    add_to(m, c.mem_used_peak);
  }
  if (!m.any) throw PlotError("no configuration has memory numbers to draw");
  m = finish(m);
  const std::vector<LegendEntry> legend = config_entries(configs, Swatch::Box);
  const Page page = draw_page(canvas, "Memory used per configuration",
                              subtitle_with(subtitle, fmt::format("summed over each cell's GPUs \u00b7 {}", kRepeatsNote)),
                              legend);
  std::vector<PanelText> texts = {
      memory_panel(std::string(info(DerivedMetric::MemUsedMeanBytes).label), m, kMemoryUsed),
      memory_panel(std::string(info(DerivedMetric::MemUsedPeakBytes).label), m,
                   info(DerivedMetric::MemUsedPeakBytes).label)};
  std::vector<std::vector<Bar>> bars(2);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    bars[0].push_back(spread_bar(configs[i].mem_used_mean, m.unit, series_color(i)));
    bars[1].push_back(spread_bar(configs[i].mem_used_peak, m.unit, series_color(i)));
  }
  const std::vector<Rect> cells = grid_cells(page.body, {1, 2});
  const std::vector<Frame> frames = layout_frames(canvas, cells, texts, config_axis(configs.size()));
  PlotGeometry geometry;
  geometry.legend = page.legend;
  draw_bar_panels(canvas, frames, bars, m.unit.divisor, geometry);
  return geometry;
}

std::size_t gpus_per_cell(std::span<const MatrixConfig> configs) {
  std::size_t n = 0;
  for (const MatrixConfig& c : configs) n = std::max(n, c.gpu_mem_mean.size());
  return n;
}

std::optional<Spread> gpu_spread(const MatrixConfig& c, std::size_t g) {
  return g < c.gpu_mem_mean.size() ? c.gpu_mem_mean[g] : std::nullopt;
}

PlotGeometry draw_per_gpu_memory(Canvas& canvas, std::span<const MatrixConfig> configs, std::string_view subtitle) {
  const std::size_t gpus = gpus_per_cell(configs);
  MemoryUnit m;
  for (const MatrixConfig& c : configs) {
    for (const auto& s : c.gpu_mem_mean) add_to(m, s);
  }
  if (!m.any) throw PlotError("no configuration has per-GPU memory numbers to draw");
  m = finish(m);
  const std::vector<LegendEntry> legend = config_entries(configs, Swatch::Box);
  const Page page = draw_page(
      canvas, "Memory used per GPU of a cell",
      subtitle_with(subtitle, fmt::format("GPU n: the cell's n-th GPU \u00b7 time-weighted mean \u00b7 {}", kRepeatsNote)),
      legend);
  const GridShape shape = seed_grid(gpus);
  std::vector<Rect> cells = grid_cells(page.body, shape);
  cells.resize(gpus);
  std::vector<PanelText> texts;
  std::vector<std::vector<Bar>> bars(gpus);
  for (std::size_t g = 0; g < gpus; ++g) {
    texts.push_back(memory_panel(fmt::format("GPU {} of the cell", g), m, kMemoryUsed));
    texts.back().show_x_title = g + shape.cols >= gpus;  // the lowest panel of its column
    for (std::size_t i = 0; i < configs.size(); ++i) {
      bars[g].push_back(spread_bar(gpu_spread(configs[i], g), m.unit, series_color(i)));
    }
  }
  const std::vector<Frame> frames = layout_frames(canvas, cells, texts, config_axis(configs.size()));
  PlotGeometry geometry;
  geometry.legend = page.legend;
  draw_bar_panels(canvas, frames, bars, m.unit.divisor, geometry);
  return geometry;
}

PlotGeometry draw_load_balance(Canvas& canvas, std::span<const MatrixConfig> configs, std::string_view subtitle) {
  const std::size_t gpus = gpus_per_cell(configs);
  MemoryUnit m;
  std::vector<std::vector<Bar>> groups;
  std::vector<Bar> cv_bars;
  bool any_cv = false;
  for (const MatrixConfig& c : configs) {
    std::vector<double> means;
    for (const auto& s : c.gpu_mem_mean) {
      add_to(m, s);
      if (s) means.push_back(s->mean);
    }
    if (const auto balance = load_balance(means)) {
      cv_bars.push_back(detail::cv_bar(*balance));
      any_cv = true;
    } else {
      cv_bars.push_back(value_bar(std::nullopt, std::nullopt, std::nullopt, detail::kCvColor));
    }
  }
  if (!m.any) throw PlotError("no configuration has per-GPU memory numbers to draw");
  m = finish(m);
  for (const MatrixConfig& c : configs) {
    std::vector<Bar> group;
    for (std::size_t g = 0; g < gpus; ++g) group.push_back(spread_bar(gpu_spread(c, g), m.unit, series_color(g)));
    groups.push_back(std::move(group));
  }

  std::vector<LegendEntry> legend;
  for (std::size_t g = 0; g < gpus; ++g) legend.push_back({fmt::format("GPU {}", g), series_color(g), Swatch::Box, {}});
  for (LegendEntry& e : detail::balance_band_entries()) legend.push_back(std::move(e));
  for (LegendEntry& e : config_entries(configs, Swatch::None)) legend.push_back(std::move(e));
  const Page page = draw_page(
      canvas, "GPU load balance per configuration",
      subtitle_with(subtitle, "GPU n: the cell's n-th GPU \u00b7 time-weighted mean memory used, over the repeats "
                              "\u00b7 CV: across the cell's GPUs"),
      legend);
  constexpr double kWeights[] = {2, 1};
  const std::vector<Rect> cells = grid_cells(page.body, {1, 2}, kWeights);
  const XAxisSpec x = config_axis(configs.size());
  const Frame memory = layout_frames(canvas, std::span(cells).first(1),
                                     std::vector{memory_panel(fmt::format("{} per GPU", kMemoryUsed), m, kMemoryUsed)}, x)
                           .front();
  PanelText cv_text;
  cv_text.title = "Load balance: CV of memory across GPUs";
  cv_text.y_title = "Coefficient of variation (%)";
  cv_text.y_title_short = "CV (%)";
  cv_text.y_hi = detail::cv_axis_top(cv_bars);
  cv_text.right_room = detail::band_label_room(canvas);
  const Frame cv = layout_frames(canvas, std::span(cells).subspan(1, 1), {&cv_text, 1}, x).front();

  PlotGeometry geometry;
  geometry.legend = page.legend;
  draw_frame(canvas, memory);
  draw_bar_groups(canvas, memory, groups);
  geometry.panels.push_back(panel_geometry(memory, m.unit.divisor));
  draw_frame(canvas, cv);
  detail::draw_balance_bands(canvas, cv);
  if (any_cv) {
    draw_bars(canvas, cv, cv_bars);
  } else {
    draw_note(canvas, cv, "load balance needs cells of two or more GPUs");
  }
  geometry.panels.push_back(panel_geometry(cv, 1));
  return geometry;
}

}  // namespace

std::string_view matrix_figure_file(MatrixFigure figure) {
  switch (figure) {
    case MatrixFigure::MemoryComparison: return "training_memory_comparison.png";
    case MatrixFigure::PerGpuMemory: return "per_gpu_memory_breakdown.png";
    case MatrixFigure::LoadBalance: return "gpu_load_balance_analysis.png";
  }
  return "figure.png";
}

PlotSize matrix_figure_size(MatrixFigure figure, std::size_t configs) {
  // About four legend entries to a row.
  const int legend_rows = static_cast<int>((configs + 3) / 4);
  switch (figure) {
    case MatrixFigure::MemoryComparison: return {1600, 760 + 24 * legend_rows};
    case MatrixFigure::PerGpuMemory: return {1600, 900 + 24 * legend_rows};
    case MatrixFigure::LoadBalance: return {1600, 760 + 24 * legend_rows};
  }
  return {1600, 900};
}

PlotGeometry render_matrix_figure(Canvas& canvas, MatrixFigure figure, std::span<const MatrixConfig> configs,
                                  std::string_view subtitle) {
  if (configs.empty()) throw PlotError("no configuration to draw");
  switch (figure) {
    case MatrixFigure::MemoryComparison: return draw_memory_comparison(canvas, configs, subtitle);
    case MatrixFigure::PerGpuMemory: return draw_per_gpu_memory(canvas, configs, subtitle);
    case MatrixFigure::LoadBalance: return draw_load_balance(canvas, configs, subtitle);
  }
  throw PlotError("unknown matrix figure");
}

void write_matrix_figure(MatrixFigure figure, std::span<const MatrixConfig> configs, std::string_view subtitle,
                         const std::filesystem::path& out) {
  const PlotSize size = matrix_figure_size(figure, configs.size());
  write_canvas_file(out, size.width_px, size.height_px,
                    [&](Canvas& canvas) { render_matrix_figure(canvas, figure, configs, subtitle); });
}

}  // namespace gpuwatch::plot
