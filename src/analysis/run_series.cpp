#include "analysis/run_series.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <span>

#include "core/derived_metrics.h"

namespace gpuwatch {

namespace {

enum class Fold : std::uint8_t { Mean, Sum, Max, PercentOfTotal };

constexpr std::size_t device_column(DeviceMetric m) { return static_cast<std::size_t>(m); }
constexpr std::size_t host_column(HostMetric m) { return static_cast<std::size_t>(m); }

// Each metric: what it is, where its values come from and how GPUs fold.
struct Row {
  RunMetricInfo info;
  bool from_host;
  std::size_t column;  // in DeviceSeries::values or HostSeries::values
  Fold fold;
};

// Memory used as a share of the GPUs' total: a percentage with what of.
constexpr DisplayFormat kShareOfTotal{"% of total", 1, 1};

// A device metric folded across GPUs: the catalogue's name, unit and display
// format, under `label` (what the fold makes of it: "hottest GPU").
constexpr Row device_row(DeviceMetric m, std::string_view label, Fold fold, std::string_view aggregation,
                          Better better) {
  const MetricInfo& c = info(m);
  return {{c.name, c.unit, label, aggregation, better, c.display}, false, device_column(m), fold};
}

// A host series, already one number per moment: the catalogue's unit, label
// and display format, and its name unless the host's needs telling apart.
constexpr Row host_row(HostMetric m, std::string_view name, std::string_view aggregation, Better better) {
  const MetricInfo& c = info(m);
  return {{name, c.unit, c.short_label, aggregation, better, c.display}, true, host_column(m), Fold::Mean};
}

constexpr Row kRows[kRunMetricCount] = {
    device_row(DeviceMetric::GpuUtilPercent, info(DeviceMetric::GpuUtilPercent).label, Fold::Mean, "mean over GPUs",
                Better::Higher),
    device_row(DeviceMetric::MemUsedBytes, "GPU memory", Fold::Sum, "sum over GPUs", Better::Lower),
    {{"mem_used_percent", "%", "GPU memory", "sum of used over sum of total, over GPUs", Better::Lower, kShareOfTotal},
     false, device_column(DeviceMetric::MemUsedBytes), Fold::PercentOfTotal},
    device_row(DeviceMetric::PowerWatts, info(DerivedMetric::PowerMeanWatts).label, Fold::Sum, "sum over GPUs",
                Better::Neither),
    device_row(DeviceMetric::TempGpuCelsius, "hottest GPU", Fold::Max, "max over GPUs", Better::Lower),
    device_row(DeviceMetric::TempJunctionCelsius, "hottest junction", Fold::Max, "max over GPUs", Better::Lower),
    device_row(DeviceMetric::SmClockMhz, info(DeviceMetric::SmClockMhz).label, Fold::Mean, "mean over GPUs",
                Better::Higher),
    host_row(HostMetric::CpuPercent, "host_cpu_percent", "host, all cores", Better::Neither),
    host_row(HostMetric::TreeRssBytes, info(HostMetric::TreeRssBytes).name, "host, recorded process tree",
                Better::Lower),
};

std::span<const double> column(const std::vector<std::vector<double>>& values, std::size_t index) {
  return index < values.size() ? std::span<const double>(values[index]) : std::span<const double>();
}

// Memory total of one GPU: it does not change, so the largest value seen
// (or the static fact) stands for the whole run.
double memory_total(const DeviceSeries& d) {
  double total = d.info.static_values.value_or_nan(DeviceMetric::MemTotalBytes);
  for (double v : column(d.values, static_cast<std::size_t>(DeviceMetric::MemTotalBytes))) {
    if (!std::isnan(v) && (std::isnan(total) || v > total)) total = v;
  }
  return total;
}

// One GPU's readings of the metric, walked forward in time.
struct Cursor {
  const DeviceSeries* device = nullptr;
  std::vector<std::size_t> present;  // indices with a value
  std::size_t at = 0;                // into present
  double total = kNaN;               // memory total, for PercentOfTotal

  // The latest value at or before t, while the GPU still reports (up to its
  // last sample of any metric).
  std::optional<double> value_at(std::int64_t t, std::span<const double> values) {
    if (present.empty() || device->mono_ns[present.front()] > t || device->mono_ns.back() < t) return std::nullopt;
    while (at + 1 < present.size() && device->mono_ns[present[at + 1]] <= t) ++at;
    return values[present[at]];
  }
};

// Adds sorted `more` to the sorted set `times`. GPUs of one run share their
// tick times, so the usual case is an equal list: no merge needed.
void merge_times(std::vector<std::int64_t>& times, const std::vector<std::int64_t>& more) {
  if (more == times) return;
  std::vector<std::int64_t> merged;
  merged.reserve(times.size() + more.size());
  std::merge(times.begin(), times.end(), more.begin(), more.end(), std::back_inserter(merged));
  merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
  times = std::move(merged);
}

ElapsedSeries fold_devices(const RunData& data, std::size_t index, Fold fold, std::int64_t origin) {
  std::vector<Cursor> cursors;
  std::vector<std::int64_t> times;
  for (const DeviceSeries& d : data.devices) {
    Cursor c;
    c.device = &d;
    if (fold == Fold::PercentOfTotal) {
      c.total = memory_total(d);
      if (std::isnan(c.total) || c.total <= 0) continue;  // no total: not part of the percentage
    }
    const auto values = column(d.values, index);
    std::vector<std::int64_t> device_times;
    for (std::size_t i = 0; i < values.size() && i < d.mono_ns.size(); ++i) {
      if (std::isnan(values[i])) continue;
      c.present.push_back(i);
      device_times.push_back(d.mono_ns[i]);
    }
    if (c.present.empty()) continue;
    merge_times(times, device_times);
    cursors.push_back(std::move(c));
  }

  ElapsedSeries out;
  out.elapsed_ns.reserve(times.size());
  out.values.reserve(times.size());
  for (std::int64_t t : times) {
    double sum = 0;
    double total = 0;
    double max = -std::numeric_limits<double>::infinity();
    std::size_t count = 0;
    for (Cursor& c : cursors) {
      const auto v = c.value_at(t, column(c.device->values, index));
      if (!v) continue;
      sum += *v;
      total += c.total;
      max = std::max(max, *v);
      ++count;
    }
    if (count == 0) continue;
    double folded = sum;
    if (fold == Fold::Mean) folded = sum / static_cast<double>(count);
    if (fold == Fold::Max) folded = max;
    if (fold == Fold::PercentOfTotal) folded = sum / total * 100;
    out.elapsed_ns.push_back(t - origin);
    out.values.push_back(folded);
  }
  return out;
}

ElapsedSeries host_series(const RunData& data, std::size_t index, std::int64_t origin) {
  ElapsedSeries out;
  const auto values = column(data.host.values, index);
  for (std::size_t i = 0; i < values.size() && i < data.host.mono_ns.size(); ++i) {
    if (std::isnan(values[i])) continue;
    out.elapsed_ns.push_back(data.host.mono_ns[i] - origin);
    out.values.push_back(values[i]);
  }
  return out;
}

}  // namespace

std::string_view to_string(Better b) {
  switch (b) {
    case Better::Higher: return "higher";
    case Better::Lower: return "lower";
    case Better::Neither: return "neither";
  }
  return "neither";
}

const RunMetricInfo& info(RunMetric m) { return kRows[static_cast<std::size_t>(m)].info; }

std::vector<DeviceMetric> run_metric_device_columns() {
  std::vector<DeviceMetric> out;
  const auto add = [&out](std::size_t column) {
    const auto m = static_cast<DeviceMetric>(column);
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  };
  for (const Row& row : kRows) {
    if (row.from_host) continue;
    add(row.column);
    if (row.fold == Fold::PercentOfTotal) add(device_column(DeviceMetric::MemTotalBytes));
  }
  return out;
}

RunMetricSource source_of(RunMetric m) {
  const Row& row = kRows[static_cast<std::size_t>(m)];
  if (row.from_host) return {RunMetricFold::Host, row.column};
  switch (row.fold) {
    case Fold::Mean: return {RunMetricFold::Mean, row.column};
    case Fold::Sum: return {RunMetricFold::Sum, row.column};
    case Fold::Max: return {RunMetricFold::Max, row.column};
    case Fold::PercentOfTotal: return {RunMetricFold::PercentOfTotal, row.column};
  }
  return {RunMetricFold::Mean, row.column};
}

std::vector<HostMetric> run_metric_host_columns() {
  std::vector<HostMetric> out;
  for (const Row& row : kRows) {
    if (row.from_host) out.push_back(static_cast<HostMetric>(row.column));
  }
  return out;
}

std::int64_t run_origin_mono_ns(const RunData& data) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  for (const DeviceSeries& d : data.devices) {
    if (!d.mono_ns.empty()) first = std::min(first, d.mono_ns.front());
  }
  if (!data.host.mono_ns.empty()) first = std::min(first, data.host.mono_ns.front());
  if (data.run.start_mono_ns > 0) return std::min(first, data.run.start_mono_ns);
  return first == std::numeric_limits<std::int64_t>::max() ? 0 : first;
}

double run_end_elapsed_s(const RunData& data) {
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  for (const DeviceSeries& d : data.devices) {
    if (!d.mono_ns.empty()) last = std::max(last, d.mono_ns.back());
  }
  if (!data.host.mono_ns.empty()) last = std::max(last, data.host.mono_ns.back());
  if (last == std::numeric_limits<std::int64_t>::min()) return 0;
  return static_cast<double>(last - run_origin_mono_ns(data)) / 1e9;
}

ElapsedSeries run_metric_series(const RunData& data, RunMetric metric) {
  const Row& row = kRows[static_cast<std::size_t>(metric)];
  const std::int64_t origin = run_origin_mono_ns(data);
  return row.from_host ? host_series(data, row.column, origin) : fold_devices(data, row.column, row.fold, origin);
}

ElapsedSeries clip(const ElapsedSeries& series, double from_s, double to_s) {
  ElapsedSeries out;
  for (std::size_t i = 0; i < series.values.size(); ++i) {
    const double t = static_cast<double>(series.elapsed_ns[i]) / 1e9;
    if (t < from_s || t > to_s) continue;
    out.elapsed_ns.push_back(series.elapsed_ns[i]);
    out.values.push_back(series.values[i]);
  }
  return out;
}

}  // namespace gpuwatch
