#include "render/plot/kinds.h"

#include <cmath>

#include <fmt/format.h>

#include "render/plot/labels.h"
#include "render/plot/style.h"

namespace gpuwatch::plot::detail {

std::vector<LegendEntry> gpu_entries(const RunData& run, Swatch swatch) {
  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < run.devices.size(); ++i) {
    entries.push_back({device_label(run.devices[i].info), series_color(i), swatch,
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

std::optional<Reference> reference_for(const RunData& run, DeviceMetric metric) {
  Reference ref{metric, "", 0};
  switch (metric) {
    case DeviceMetric::MemUsedBytes:
    case DeviceMetric::MemReservedBytes: ref = {DeviceMetric::MemTotalBytes, "capacity", 0}; break;
    case DeviceMetric::PowerWatts: ref = {DeviceMetric::PowerLimitWatts, "power limit", 0}; break;
    case DeviceMetric::SmClockMhz: ref = {DeviceMetric::SmClockMaxMhz, "max clock", 0}; break;
    case DeviceMetric::MemClockMhz: ref = {DeviceMetric::MemClockMaxMhz, "max clock", 0}; break;
    default: return std::nullopt;
  }
  ValueRange range;
  for (const DeviceSeries& d : run.devices) {
    range.add(finite_range(metric_column(d, ref.metric)));
    if (auto v = d.info.static_values.get(ref.metric)) range.add(*v);
  }
  if (range.empty() || range.hi <= 0) return std::nullopt;
  ref.value = range.hi;
  return ref;
}

MetricScale metric_scale(std::span<const RunData> runs, DeviceMetric metric, std::optional<double> reference) {
  MetricScale s;
  for (const RunData& run : runs) {
    for (const DeviceSeries& d : run.devices) s.range.add(finite_range(metric_column(d, metric)));
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

}  // namespace gpuwatch::plot::detail
