// balance: how evenly the work and the memory are spread over the GPUs
// (seed 001's load-balance figure): per-GPU time-weighted means, and their
// coefficient of variation against the seeds' 5 / 10 / 20 % quality bands.
#include <algorithm>

#include <fmt/format.h>

#include "analysis/stats.h"
#include "render/plot/kinds.h"
#include "render/plot/labels.h"
#include "render/plot/marks.h"
#include "render/plot/page.h"
#include "render/plot/style.h"

namespace gpuwatch::plot::detail {

namespace {

constexpr DeviceMetric kBalanced[] = {DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes};
constexpr double kBandEdges[] = {5, 10, 20};
constexpr double kLabelRoom = 1.15;  // headroom over the tallest bar for its label

struct MetricBars {
  DeviceMetric metric;
  std::vector<Bar> bars;
  std::vector<double> means;  // GPUs with a value only, stored units
  DisplayUnit unit;
  double top = 0;  // highest whisker, shown units
};

MetricBars per_gpu_means(const PlotRun& run, DeviceMetric metric) {
  MetricBars m{metric, {}, {}, {}, 0};
  std::vector<std::optional<Moments>> summaries;
  double largest = 0;
  for (const DeviceData& d : run.devices) {
    summaries.push_back(d.metric(metric).moments);
    if (summaries.back()) largest = std::max(largest, summaries.back()->mean + summaries.back()->std);
  }
  m.unit = display_unit(info(metric).unit, largest);
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    if (const auto& s = summaries[i]) {
      m.means.push_back(s->mean);
      // ± 1 std, but never past what was seen (no 110 % utilization).
      const double hi = std::min(s->max, s->mean + s->std) / m.unit.divisor;
      m.bars.push_back(value_bar(s->mean / m.unit.divisor, std::max(s->min, s->mean - s->std) / m.unit.divisor, hi,
                                 series_color(i)));
      m.top = std::max(m.top, hi);
    } else {
      m.bars.push_back(value_bar(std::nullopt, std::nullopt, std::nullopt, series_color(i)));
    }
  }
  return m;
}

}  // namespace

// "5 %", "10 %", "20 %" right of the area, each where its line is, none
// on top of another.
void draw_balance_bands(Canvas& canvas, const Frame& f) {
  for (const double edge : kBandEdges) draw_reference_line(canvas, f, edge);
  std::vector<Rect> placed;
  for (const double edge : kBandEdges) {
    const double y = f.py(edge);
    if (y < f.area.y || y > f.area.bottom()) continue;
    const std::string text = fmt::format("{} %", edge);
    const double h = canvas.line_height(fonts::kNote);
    const Rect would{f.area.right() + 4, y - h / 2, canvas.text_width(text, fonts::kNote), h};
    if (std::any_of(placed.begin(), placed.end(), [&](const Rect& r) { return r.overlaps(would); })) continue;
    placed.push_back(canvas.text(text, would.x, y, HAlign::Left, VAlign::Middle, fonts::kNote, colors::kMuted));
  }
}

double band_label_room(Canvas& canvas) { return canvas.text_width("20 %", fonts::kNote) + 6; }

Bar cv_bar(const Balance& balance) {
  const std::string cv = format_number(balance.cv_percent, 1);
  return {balance.cv_percent, std::nullopt, std::nullopt, kCvColor, fmt::format("{} % {}", cv, to_string(balance.band)),
          cv};
}

double cv_axis_top(std::span<const Bar> cv_bars) {
  double top = 25;
  for (const Bar& b : cv_bars) top = std::max(top, b.value * 1.2);
  return top;
}

std::vector<LegendEntry> balance_band_entries() {
  return {{"CV across GPUs", kCvColor, Swatch::Box, {}},
          {"quality bands: 5 / 10 / 20 %", colors::kReference, Swatch::Line, kDashed}};
}

PlotNeeds balance_needs(const PlotOptions&) {
  PlotNeeds needs;
  for (const DeviceMetric m : kBalanced) {
    needs.moments.push_back(m);
    if (const auto ref = reference_metric(m)) needs.ranges.push_back(*ref);
  }
  return needs;
}

PlotGeometry draw_balance(Canvas& canvas, const PlotRun& run, const PlotOptions& options) {
  std::vector<MetricBars> metrics;
  for (DeviceMetric m : kBalanced) metrics.push_back(per_gpu_means(run, m));

  std::vector<Bar> cv_bars;
  XAxisSpec cv_axis{XAxisSpec::Kind::Categories, 0, 1, false, {}, "Metric"};
  for (const MetricBars& m : metrics) {
    const auto balance = load_balance(m.means);
    if (!balance) continue;
    cv_axis.categories.emplace_back(metric_title(m.metric));
    cv_bars.push_back(cv_bar(*balance));
  }

  std::vector<LegendEntry> legend = gpu_entries(run, Swatch::Box);
  for (LegendEntry& e : balance_band_entries()) legend.push_back(std::move(e));
  const std::string subtitle =
      run_subtitle(run) + " \u00b7 time-weighted means, whiskers \u00b1 1 std (within the values seen)";
  const Page page = draw_page(
      canvas, title_or(options, fmt::format("GPU load balance \u2014 {}", run_label(run.base.run))), subtitle, legend);
  constexpr double kWeights[] = {1, 1, 0.8};
  const std::vector<Rect> cells = grid_cells(page.body, {1, 3}, kWeights);

  XAxisSpec gpu_axis{XAxisSpec::Kind::Categories, 0, 1, false, {}, "GPU"};
  for (const DeviceSeries& d : run.base.devices) gpu_axis.categories.push_back(std::to_string(d.info.index));
  std::vector<PanelText> texts;
  for (const MetricBars& m : metrics) {
    PanelText t;
    t.title = fmt::format("{}: mean per GPU", metric_title(m.metric));
    if (const auto ref = reference_for(run, m.metric)) {
      t.title += fmt::format(" (of {})", format_value(ref->value, info(ref->metric).unit));
    }
    t.y_title = axis_title(metric_title(m.metric), m.unit.symbol);
    t.y_title_short = m.unit.symbol;
    t.y_hi = std::max(m.top * kLabelRoom, m.means.empty() ? 1.0 : 0.0);
    if (info(m.metric).unit == "%") {
      t.y_hi = std::max(t.y_hi, 100.0);
      t.y_tick_max = 100;
    }
    texts.push_back(std::move(t));
  }
  std::vector<Frame> frames = layout_frames(canvas, std::span(cells).first(2), texts, gpu_axis);
  PanelText cv_text;
  cv_text.title = "Load balance: CV across GPUs";
  cv_text.y_title = "Coefficient of variation (%)";
  cv_text.y_title_short = "CV (%)";
  cv_text.y_hi = cv_axis_top(cv_bars);
  cv_text.right_room = band_label_room(canvas);
  const Frame cv_frame = layout_frames(canvas, std::span(cells).subspan(2, 1), {&cv_text, 1}, cv_axis).front();

  PlotGeometry geometry;
  geometry.legend = page.legend;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    draw_frame(canvas, frames[i]);
    if (metrics[i].means.empty()) {
      draw_note(canvas, frames[i], fmt::format("no data: no GPU reported {}", info(metrics[i].metric).name));
    } else {
      draw_bars(canvas, frames[i], metrics[i].bars);
    }
    geometry.panels.push_back(panel_geometry(frames[i], metrics[i].unit.divisor));
  }
  draw_frame(canvas, cv_frame);
  draw_balance_bands(canvas, cv_frame);
  if (cv_bars.empty()) {
    draw_note(canvas, cv_frame, "load balance needs two or more GPUs with values");
  } else {
    draw_bars(canvas, cv_frame, cv_bars);
  }
  geometry.panels.push_back(panel_geometry(cv_frame, 1));
  return geometry;
}

}  // namespace gpuwatch::plot::detail
