// histogram: how long each GPU spent at each value of one metric, as step
// outlines on a shared set of bins (time-weighted like the report).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/histogram.h"
#include "render/plot/kinds.h"
#include "render/plot/labels.h"
#include "render/plot/marks.h"
#include "render/plot/page.h"
#include "render/plot/style.h"

namespace gpuwatch::plot::detail {

namespace {

constexpr int kTargetBins = 30;

// Percentages get 5 % bins over 0..100; anything else nice bins over its range.
HistogramBins choose_bins(const ValueRange& range, DeviceMetric metric) {
  if (info(metric).unit == "%" && range.lo >= 0 && range.hi <= 100) return {0, 5, 20};
  double span = range.hi - range.lo;
  if (span <= 0) span = std::max(std::abs(range.hi) * 0.1, 1.0);
  const double width = nice_step(span, kTargetBins);
  const double lo = std::floor(range.lo / width) * width;
  const auto count = static_cast<std::size_t>(std::max(1.0, std::floor((range.hi - lo) / width) + 1));
  return {lo, width, count};
}

// The outline of one histogram: up, across and down each bin.
std::vector<LinePoint> steps(const HistogramBins& bins, const std::vector<double>& shares, double divisor) {
  std::vector<LinePoint> points;
  points.push_back({bins.lo / divisor, 0});
  for (std::size_t b = 0; b < shares.size(); ++b) {
    const double left = (bins.lo + static_cast<double>(b) * bins.width) / divisor;
    const double right = left + bins.width / divisor;
    points.push_back({left, shares[b] * 100});
    points.push_back({right, shares[b] * 100});
  }
  points.push_back({points.back().t, 0});
  return points;
}

DeviceMetric histogram_metric(const PlotOptions& options) {
  return options.metric.value_or(DeviceMetric::GpuUtilPercent);
}

}  // namespace

PlotNeeds histogram_needs(const PlotOptions& options) {
  PlotNeeds needs;
  needs.histogram = histogram_metric(options);
  return needs;
}

PlotGeometry draw_histogram(Canvas& canvas, const PlotRun& run, const PlotOptions& options) {
  const DeviceMetric metric = histogram_metric(options);
  ValueRange range;
  for (const DeviceData& d : run.devices) range.add(d.metric(metric).range);
  const HistogramBins bins = range.empty() ? HistogramBins{0, 1, 1} : choose_bins(range, metric);
  const double bins_hi = bins.lo + static_cast<double>(bins.count) * bins.width;
  const DisplayUnit unit = display_unit(info(metric).unit, std::max(std::abs(bins.lo), std::abs(bins_hi)));

  std::vector<std::vector<double>> shares;
  double top = 0;
  for (const DeviceData& d : run.devices) {
    shares.push_back(time_share_histogram(d.histogram, bins));
    for (double s : shares.back()) top = std::max(top, s * 100);
  }

  const std::string title =
      fmt::format("Distribution of {} \u2014 {}", metric_title(metric), run_label(run.base.run));
  const Page page =
      draw_page(canvas, title_or(options, title),
                run_subtitle(run) + fmt::format(" \u00b7 bins of {}", format_value(bins.width, info(metric).unit)),
                gpu_entries(run, Swatch::Line));
  PanelText text;
  text.title = fmt::format("{}: share of the run's time in each bin", metric_title(metric));
  text.y_title = "Share of time (%)";
  text.y_title_short = "%";
  text.y_hi = std::max(top * 1.08, 1.0);
  XAxisSpec x{XAxisSpec::Kind::Value, bins.lo / unit.divisor, bins_hi / unit.divisor, false, {},
              axis_title(metric_title(metric), unit.symbol)};
  const Rect cell = page.body;
  const Frame frame = layout_frames(canvas, {&cell, 1}, {&text, 1}, x).front();

  PlotGeometry geometry;
  geometry.legend = page.legend;
  geometry.panels.push_back(panel_geometry(frame, 1));
  draw_frame(canvas, frame);
  if (range.empty()) {
    draw_note(canvas, frame, fmt::format("no data: no GPU reported {}", info(metric).name));
    return geometry;
  }
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const auto points = steps(bins, shares[i], unit.divisor);
    if (shares.size() == 1) {
      // One GPU: filled bars read better than an outline.
      for (std::size_t b = 0; b < shares[i].size(); ++b) {
        const double x0 = frame.px(points[1 + 2 * b].t);
        const double x1 = frame.px(points[2 + 2 * b].t);
        const double y = frame.py(shares[i][b] * 100);
        canvas.fill({x0, y, x1 - x0, frame.py(0) - y}, series_color(i), 0.25);
      }
    }
    draw_line(canvas, frame, points, 1, series_color(i), series_dash(i));
  }
  return geometry;
}

}  // namespace gpuwatch::plot::detail
