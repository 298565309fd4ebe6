#include "render/plot/kinds.h"

#include <cmath>

#include <fmt/format.h>

#include "render/plot/labels.h"
#include "render/plot/style.h"

namespace gpuwatch::plot::detail {

std::vector<LegendEntry> gpu_entries(const PlotRun& run, Swatch swatch) {
  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < run.base.devices.size(); ++i) {
    entries.push_back({device_label(run.base.devices[i].info), series_color(i), swatch,
                       swatch == Swatch::Line ? series_dash(i) : std::span<const double>{}});
  }
  return entries;
}

std::string title_or(const PlotOptions& options, std::string fallback) {
  return options.title.empty() ? std::move(fallback) : options.title;
}

bool from_zero(DeviceMetric metric) {
  const std::string_view unit = info(metric).unit;
  return unit == "%" || unit == "B" || unit == "W" || unit == "B/s" || unit == "J";
}

namespace {

// Named by the reference metric's short label in the catalogue.
std::optional<Reference> reference_of(DeviceMetric metric) {
  const auto reference = [](DeviceMetric m) { return Reference{m, info(m).short_label, 0}; };
  switch (metric) {
    case DeviceMetric::MemUsedBytes:
    case DeviceMetric::MemReservedBytes: return reference(DeviceMetric::MemTotalBytes);
    case DeviceMetric::PowerWatts: return reference(DeviceMetric::PowerLimitWatts);
    case DeviceMetric::SmClockMhz: return reference(DeviceMetric::SmClockMaxMhz);
    case DeviceMetric::MemClockMhz: return reference(DeviceMetric::MemClockMaxMhz);
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<DeviceMetric> reference_metric(DeviceMetric metric) {
  const auto ref = reference_of(metric);
  return ref ? std::optional(ref->metric) : std::nullopt;
}

std::optional<Reference> reference_for(const PlotRun& run, DeviceMetric metric) {
  std::optional<Reference> ref = reference_of(metric);
  if (!ref) return std::nullopt;
  ValueRange range;
  for (std::size_t i = 0; i < run.devices.size(); ++i) {
    range.add(run.devices[i].metric(ref->metric).range);
    if (auto v = run.base.devices[i].info.static_values.get(ref->metric)) range.add(*v);
  }
  if (range.empty() || range.hi <= 0) return std::nullopt;
  ref->value = range.hi;
  return ref;
}

MetricScale metric_scale(std::span<const PlotRun> runs, DeviceMetric metric, std::optional<double> reference) {
  MetricScale s;
  for (const PlotRun& run : runs) {
    for (const DeviceData& d : run.devices) s.range.add(d.metric(metric).range);
  }
  if (s.range.empty()) return s;
  if (reference) s.range.add(*reference);
  // Percentages read best on their whole scale.
  if (info(metric).unit == "%") s.range.add(100);
  s.unit = display_unit(info(metric).unit, std::max(std::abs(s.range.lo), std::abs(s.range.hi)));
  return s;
}

std::string format_value(double stored, std::string_view stored_unit) {
  const DisplayUnit unit = display_unit(stored_unit, std::abs(stored));
  const double shown = stored / unit.divisor;
  const int decimals = std::abs(shown) >= 100 || shown == std::round(shown) ? 0 : 1;
  return unit.symbol.empty() ? format_number(shown, decimals)
                             : fmt::format("{} {}", format_number(shown, decimals), unit.symbol);
}

PanelGeometry panel_geometry(const Frame& frame, double divisor) { return {frame, divisor}; }

std::size_t line_buckets(const PlotOptions& options) {
  constexpr std::size_t kPerPixel = 8;
  return kPerPixel * static_cast<std::size_t>(plot_size(options).width_px);
}

}  // namespace gpuwatch::plot::detail
