#include "analysis/run_report.h"

#include <algorithm>
#include <cmath>

namespace gpuwatch {

namespace {

// Metrics that are not quantities (bitmasks) or never change (static facts).
bool summarizable(DeviceMetric m) {
  return m != DeviceMetric::ClockEventReasons && m != DeviceMetric::EnergyJoules &&
         m != DeviceMetric::SlowReadAgeSeconds && info(m).cadence != Cadence::Static;
}

std::optional<double> total_memory(const DeviceSeries& series) {
  if (auto v = series.info.static_values.get(DeviceMetric::MemTotalBytes)) return *v;
  const auto i = static_cast<std::size_t>(DeviceMetric::MemTotalBytes);
  if (i < series.values.size()) {
    for (double v : series.values[i]) {
      if (!std::isnan(v) && v > 0) return v;
    }
  }
  return std::nullopt;
}

DeviceReport device_report(const DeviceSeries& series) {
  DeviceReport report;
  report.info = series.info;
  report.samples = series.mono_ns.size();
  report.lost_at_wall_ns = series.lost_at_wall_ns;
  for (std::size_t m = 0; m < kDeviceMetricCount && m < series.values.size(); ++m) {
    const auto metric = static_cast<DeviceMetric>(m);
    if (!summarizable(metric)) continue;
    if (auto s = summarize(series.mono_ns, series.values[m])) report.metrics.push_back({metric, *s});
  }
  // Power is a one-second average on recent parts; bridging more than a few
  // seconds of missing samples would invent energy.
  constexpr std::int64_t kMaxPowerGapNs = 5'000'000'000;
  const auto column = [&](DeviceMetric m) -> std::span<const double> {
    const auto i = static_cast<std::size_t>(m);
    return i < series.values.size() ? std::span<const double>(series.values[i]) : std::span<const double>();
  };
  // The counter was read slightly before the tick that carries it.
  const auto energy = column(DeviceMetric::EnergyJoules);
  const auto age = column(DeviceMetric::SlowReadAgeSeconds);
  std::vector<std::int64_t> energy_time(series.mono_ns.begin(), series.mono_ns.end());
  for (std::size_t i = 0; i < energy_time.size() && i < age.size(); ++i) {
    if (!std::isnan(age[i])) energy_time[i] -= std::llround(age[i] * 1e9);
  }
  report.energy = estimate_energy({series.mono_ns, column(DeviceMetric::PowerWatts)}, {energy_time, energy},
                                  kMaxPowerGapNs);

  const auto util = column(DeviceMetric::GpuUtilPercent);
  report.idle_gaps = find_idle_gaps(series.mono_ns, util);
  if (const auto reasons = column(DeviceMetric::ClockEventReasons); !reasons.empty()) {
    ThrottleReport t = throttle_time(series.mono_ns, reasons);
    if (t.sampled_s > 0) report.throttle = std::move(t);
  }
  report.memory = memory_trend(series.mono_ns, column(DeviceMetric::MemUsedBytes), total_memory(series));
  const auto static_int = [&](DeviceMetric m) -> std::optional<int> {
    if (auto v = series.info.static_values.get(m)) return static_cast<int>(*v);
    return std::nullopt;
  };
  report.pcie_link = pcie_link({series.mono_ns, util, column(DeviceMetric::PcieLinkGen),
                                column(DeviceMetric::PcieLinkWidth), static_int(DeviceMetric::PcieLinkGenMax),
                                static_int(DeviceMetric::PcieLinkWidthMax)});
  return report;
}

std::optional<BalanceReport> balance_of(const std::vector<DeviceReport>& devices, DeviceMetric metric) {
  BalanceReport report;
  report.metric = metric;
  for (const DeviceReport& d : devices) {
    if (const Summary* s = d.find(metric)) {
      report.per_gpu_mean.push_back(s->mean);
      report.device_indices.push_back(d.info.index);
    }
  }
  auto balance = load_balance(report.per_gpu_mean);
  if (!balance) return std::nullopt;
  report.balance = *balance;
  return report;
}

}  // namespace

const Summary* DeviceReport::find(DeviceMetric m) const {
  auto it = std::find_if(metrics.begin(), metrics.end(), [m](const MetricSummary& s) { return s.metric == m; });
  return it == metrics.end() ? nullptr : &it->summary;
}

const Summary* RunReport::find_host(HostMetric m) const {
  auto it = std::find_if(host.begin(), host.end(), [m](const HostMetricSummary& s) { return s.metric == m; });
  return it == host.end() ? nullptr : &it->summary;
}

RunReport build_report(const RunData& data) {
  RunReport report;
  report.run = data.run;
  std::int64_t end_ns = data.run.end_wall_ns.value_or(data.run.start_wall_ns);
  for (const DeviceSeries& series : data.devices) {
    if (!series.wall_ns.empty()) end_ns = std::max(end_ns, series.wall_ns.back());
    report.devices.push_back(device_report(series));
  }
  if (!data.host.wall_ns.empty()) end_ns = std::max(end_ns, data.host.wall_ns.back());
  if (data.run.end_wall_ns) end_ns = *data.run.end_wall_ns;
  report.wall_duration_s = static_cast<double>(end_ns - data.run.start_wall_ns) / 1e9;

  for (std::size_t m = 0; m < kHostMetricCount && m < data.host.values.size(); ++m) {
    if (auto s = summarize(data.host.mono_ns, data.host.values[m])) {
      report.host.push_back({static_cast<HostMetric>(m), *s});
    }
  }
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    const auto metric = static_cast<DeviceMetric>(m);
    if (!summarizable(metric)) continue;
    if (auto b = balance_of(report.devices, metric)) report.balance.push_back(std::move(*b));
  }
  std::int64_t end_mono_ns = data.run.start_mono_ns;
  for (const DeviceSeries& series : data.devices) {
    if (!series.mono_ns.empty()) end_mono_ns = std::max(end_mono_ns, series.mono_ns.back());
  }
  const std::vector<Segment> segments = segments_from_events(data.events, end_mono_ns);
  report.phases = summarize_segments(data, segments, SegmentKind::Phase);
  report.epochs = summarize_segments(data, segments, SegmentKind::Epoch);
  for (const DeviceReport& d : report.devices) {
    if (auto j = d.energy.best()) report.total_energy_joules = report.total_energy_joules.value_or(0) + *j;
  }
  report.processes = data.processes;
  report.events = data.events;
  return report;
}

}  // namespace gpuwatch
