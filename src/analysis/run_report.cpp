#include "analysis/run_report.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <unordered_map>

#include "analysis/detector_rollups.h"
#include "analysis/parallel_for.h"
#include "analysis/rollup_stats.h"
#include "analysis/run_verdict.h"

namespace gpuwatch {

namespace {

// Metrics that are not quantities (bitmasks) or never change (static facts).
bool summarizable(DeviceMetric m) {
  return m != DeviceMetric::ClockEventReasons && m != DeviceMetric::EnergyJoules &&
         m != DeviceMetric::SlowReadAgeSeconds && info(m).cadence != Cadence::Static;
}

std::optional<double> total_memory(const DeviceSeries& series, const std::optional<double>& known) {
  if (known) return known;
  if (auto v = series.info.static_values.get(DeviceMetric::MemTotalBytes)) return *v;
  const auto i = static_cast<std::size_t>(DeviceMetric::MemTotalBytes);
  if (i < series.values.size()) {
    for (double v : series.values[i]) {
      if (!std::isnan(v) && v > 0) return v;
    }
  }
  return std::nullopt;
}

// What the detectors read at full resolution, in three passes over a device
// so that no more than four of its columns are in memory at once (each is
// 10 MB per million samples, and a pass skips the columns it does not read
// without decoding them). The first: idle gaps, memory and the phase and
// epoch statistics; the second: energy and throttling; the third: the PCIe link.
constexpr DeviceMetric kActivityMetrics[] = {DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes,
                                             DeviceMetric::PowerWatts};
constexpr DeviceMetric kEnergyMetrics[] = {DeviceMetric::PowerWatts, DeviceMetric::EnergyJoules,
                                           DeviceMetric::SlowReadAgeSeconds, DeviceMetric::ClockEventReasons};
static_assert(kEnergyMetrics[3] == DeviceMetric::ClockEventReasons, "the reasons are last: left out when rolled up");
constexpr DeviceMetric kLinkMetrics[] = {DeviceMetric::GpuUtilPercent, DeviceMetric::PcieLinkGen,
                                         DeviceMetric::PcieLinkWidth};
static_assert(kEnergyMetrics[0] == DeviceMetric::PowerWatts, "power is summarized with the first pass");
static_assert(kLinkMetrics[0] == DeviceMetric::GpuUtilPercent, "utilization is summarized with the first pass");
// Without rollups, the remaining statistics are read this many metrics at a time.
constexpr std::size_t kSummaryMetricsPerPass = 12;

bool contains(std::span<const DeviceMetric> list, DeviceMetric m) {
  return std::find(list.begin(), list.end(), m) != list.end();
}

// The first pass, with the device's total memory when nothing else gives it.
std::vector<DeviceMetric> activity_metrics(const std::optional<double>& total_bytes) {
  std::vector<DeviceMetric> metrics(std::begin(kActivityMetrics), std::end(kActivityMetrics));
  if (!total_bytes) metrics.push_back(DeviceMetric::MemTotalBytes);
  return metrics;
}

std::span<const double> column_of(const DeviceSeries& series, DeviceMetric m) {
  const auto i = static_cast<std::size_t>(m);
  return i < series.values.size() && series.values[i].size() == series.mono_ns.size()
             ? std::span<const double>(series.values[i])
             : std::span<const double>();
}

void add_summaries(DeviceReport& report, const DeviceSeries& series, std::span<const DeviceMetric> metrics) {
  const TimeAxis axis(series.mono_ns);
  for (DeviceMetric metric : metrics) {
    if (!summarizable(metric)) continue;
    if (auto s = summarize(axis, column_of(series, metric))) report.metrics.push_back({metric, *s});
  }
}

// Where memory is judged: while the GPU works, from the moment the job has
// taken its working memory until it lets go of all of it. The climb while it
// loads its model (from nothing to its level in a few seconds) and the fall
// when its process exits are neither a leak nor a drop. "Taken" = at least
// half the median level of the busy span; a real leak, growing all along,
// still spans most of the run.
std::pair<std::span<const std::int64_t>, std::span<const double>> working_span(
    std::span<const std::int64_t> time_ns, std::span<const double> memory, const std::optional<IdleGapReport>& gaps) {
  if (!gaps || memory.empty()) return {time_ns, memory};
  const auto begin = static_cast<std::size_t>(std::lower_bound(time_ns.begin(), time_ns.end(), gaps->first_busy_ns) -
                                              time_ns.begin());
  const auto end = static_cast<std::size_t>(std::upper_bound(time_ns.begin(), time_ns.end(), gaps->last_busy_ns) -
                                            time_ns.begin());
  std::vector<double> levels;
  for (std::size_t i = begin; i < end; ++i) {
    if (!std::isnan(memory[i])) levels.push_back(memory[i]);
  }
  if (levels.empty()) return {time_ns.subspan(begin, end - begin), memory.subspan(begin, end - begin)};
  const auto mid = levels.begin() + static_cast<std::ptrdiff_t>(levels.size() / 2);
  std::nth_element(levels.begin(), mid, levels.end());
  const double taken = *mid / 2;
  std::size_t first = begin;
  while (first < end && (std::isnan(memory[first]) || memory[first] < taken)) ++first;
  // NVML's utilization trails by its averaging window, so the last "busy"
  // sample can come after the process exited and freed everything: memory
  // near nothing (a twentieth of the working level) at the very end is the
  // exit, not a drop while working.
  const double gone = *mid / 20;
  std::size_t last = end;
  while (last > first && (std::isnan(memory[last - 1]) || memory[last - 1] < gone)) --last;
  return {time_ns.subspan(first, last - first), memory.subspan(first, last - first)};
}

// Energy and throttling, from kEnergyMetrics.
void add_energy_detectors(DeviceReport& report, const DeviceSeries& series) {
  const auto column = [&](DeviceMetric m) { return column_of(series, m); };
  // Power is a one-second average on recent parts; bridging more than a few
  // seconds of missing samples would invent energy (kEnergyPowerBridgeNs, core/detector_minutes.h).
  // The counter was read slightly before the tick that carries it.
  const auto energy = column(DeviceMetric::EnergyJoules);
  const auto age = column(DeviceMetric::SlowReadAgeSeconds);
  std::vector<std::int64_t> energy_time(series.mono_ns.begin(), series.mono_ns.end());
  for (std::size_t i = 0; i < energy_time.size() && i < age.size(); ++i) {
    if (!std::isnan(age[i])) energy_time[i] -= std::llround(age[i] * 1e9);
  }
  report.energy = estimate_energy({series.mono_ns, column(DeviceMetric::PowerWatts)}, {energy_time, energy},
                                  kEnergyPowerBridgeNs);
  if (const auto reasons = column(DeviceMetric::ClockEventReasons); !reasons.empty()) {
    ThrottleReport t = throttle_time(series.mono_ns, reasons);
    if (t.sampled_s > 0) report.throttle = std::move(t);
  }
}

// Idle gaps and memory, from activity_metrics().
void add_activity_detectors(DeviceReport& report, const DeviceSeries& series, const std::optional<double>& total_bytes) {
  const auto column = [&](DeviceMetric m) { return column_of(series, m); };
  const auto util = column(DeviceMetric::GpuUtilPercent);
  report.idle_gaps = find_idle_gaps(series.mono_ns, util);
  const auto [memory_time, memory] = working_span(series.mono_ns, column(DeviceMetric::MemUsedBytes), report.idle_gaps);
  report.memory = memory_trend(memory_time, memory, total_memory(series, total_bytes));
}

// The PCIe link, from kLinkMetrics.
void add_link_detector(DeviceReport& report, const DeviceSeries& series) {
  const auto column = [&](DeviceMetric m) { return column_of(series, m); };
  const auto static_int = [&](DeviceMetric m) -> std::optional<int> {
    if (auto v = series.info.static_values.get(m)) return static_cast<int>(*v);
    return std::nullopt;
  };
  report.pcie_link = pcie_link({series.mono_ns, column(DeviceMetric::GpuUtilPercent), column(DeviceMetric::PcieLinkGen),
                                column(DeviceMetric::PcieLinkWidth), static_int(DeviceMetric::PcieLinkGenMax),
                                static_int(DeviceMetric::PcieLinkWidthMax)});
}

// One device's share of the report. Devices are independent, so they are
// worked on in parallel and merged in device order afterwards.
struct DeviceResult {
  DeviceReport report;
  std::vector<SegmentStats> phases;  // this device's statistics only
  std::vector<SegmentStats> epochs;
  std::int64_t last_mono_ns = 0;
};

// Every summarizable metric's statistics from the device's merged rollups.
std::vector<MetricSummary> summaries_from_rollups(const DeviceRollupTotals& totals) {
  std::vector<MetricSummary> out;
  for (std::size_t m = 0; m < kDeviceMetricCount && m < totals.merged.size(); ++m) {
    const auto metric = static_cast<DeviceMetric>(m);
    if (!summarizable(metric) || !totals.merged[m]) continue;
    if (auto s = summarize_merged(*totals.merged[m])) out.push_back({metric, *s});
  }
  return out;
}

// What a device's rollups give: every statistic, and the throttling when
// the clock-event reasons' histogram is exact (rollup_stats.h).
struct FromRollups {
  std::vector<MetricSummary> summaries;
  std::optional<ThrottleReport> throttle;
  // The detectors' minutes, and the memory's rollups their trend needs
  // (runs finished before them have none: the samples are read instead).
  std::optional<std::vector<DetectorMinute>> detectors;
  std::vector<ColumnRollup> memory;
};

std::optional<FromRollups> from_rollups(const RollupSource* source, int device_index) {
  if (!source) return std::nullopt;
  std::optional<DeviceRollupTotals> t = source->totals(device_index);
  if (!t) return std::nullopt;
  const auto reasons = static_cast<std::size_t>(DeviceMetric::ClockEventReasons);
  // No reasons at all: no throttling (an empty exact histogram), as from the samples.
  const bool any = reasons < t->merged.size() && t->merged[reasons];
  FromRollups from{summaries_from_rollups(*t), throttle_time_merged(any ? *t->merged[reasons] : ColumnRollup{}), {}, {}};
  if (t->detectors) {
    from.detectors = std::move(t->detectors);
    from.memory = std::move(t->memory);
  }
  return from;
}

// A long run's detectors from its detector minutes (analysis/detector_rollups.h):
// samples are read only where the memory may have dropped, and the
// clock-event reasons only when their rollups could not give the throttling.
void add_minute_detectors(DeviceResult& result, const DeviceSeries& facts, const DeviceColumns& columns,
                          FromRollups& from, const std::optional<double>& total_bytes, std::int64_t start_mono_ns) {
  DeviceReport& report = result.report;
  const auto static_int = [&](DeviceMetric m) -> std::optional<int> {
    if (auto v = facts.info.static_values.get(m)) return static_cast<int>(*v);
    return std::nullopt;
  };
  const ColumnWindowRead read_window = [&](DeviceMetric metric, std::int64_t since_ns, std::int64_t until_ns) {
    const DeviceMetric metrics[] = {metric};
    const DeviceSeries window = columns.load_window(facts.info.index, metrics, since_ns, until_ns);
    const std::span<const double> values = column_of(window, metric);
    WindowSamples present;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (std::isnan(values[i])) continue;
      present.time_ns.push_back(window.mono_ns[i]);
      present.values.push_back(values[i]);
    }
    return present;
  };
  MinuteDetectors d = detectors_from_minutes({*from.detectors, from.memory, start_mono_ns, total_bytes,
                                              static_int(DeviceMetric::PcieLinkGenMax),
                                              static_int(DeviceMetric::PcieLinkWidthMax), read_window});
  report.samples = d.samples;
  result.last_mono_ns = d.last_row_ns;
  report.idle_gaps = std::move(d.idle_gaps);
  report.memory = std::move(d.memory);
  report.energy = d.energy;
  report.pcie_link = std::move(d.pcie_link);
  if (from.throttle) {
    if (from.throttle->sampled_s > 0) report.throttle = std::move(from.throttle);
    return;
  }
  constexpr DeviceMetric kReasons[] = {DeviceMetric::ClockEventReasons};
  const DeviceSeries reasons = columns.load(facts.info.index, kReasons, WallClock::Skip);
  if (const auto column = column_of(reasons, DeviceMetric::ClockEventReasons); !column.empty()) {
    ThrottleReport t = throttle_time(reasons.mono_ns, column);
    if (t.sampled_s > 0) report.throttle = std::move(t);
  }
}

// The device's memory: its static fact, else the largest total its rollups saw.
std::optional<double> device_total_bytes(const DeviceSeries& facts,
                                         const std::optional<std::vector<MetricSummary>>& rollup_summaries) {
  if (auto known = facts.info.static_values.get(DeviceMetric::MemTotalBytes)) return known;
  if (!rollup_summaries) return std::nullopt;
  const auto total = std::find_if(rollup_summaries->begin(), rollup_summaries->end(),
                                  [](const MetricSummary& s) { return s.metric == DeviceMetric::MemTotalBytes; });
  if (total == rollup_summaries->end()) return std::nullopt;
  return total->summary.max;
}

DeviceResult device_report(const DeviceSeries& facts, const DeviceColumns& columns,
                           std::span<const Segment> segments, const RollupSource* rollup_source,
                           std::int64_t start_mono_ns) {
  DeviceResult result;
  DeviceReport& report = result.report;
  report.info = facts.info;
  report.lost_at_wall_ns = facts.lost_at_wall_ns;
  // With rollups, the statistics come from them, and the samples are read
  // only for what needs them in order: the detectors, energy and phases.
  // A device's rollups take tens of MB: summarized and let go before the
  // passes, so that the two are not in memory together.
  std::optional<FromRollups> from = from_rollups(rollup_source, facts.info.index);
  const bool rollups = from.has_value();
  std::optional<std::vector<MetricSummary>> rollup_summaries;
  if (from) rollup_summaries = std::move(from->summaries);
  const std::optional<double> total_bytes = device_total_bytes(facts, rollup_summaries);
  if (from && from->detectors && segments.empty() && long_enough_for_minutes(*from->detectors)) {
    // Phases and epochs still need the samples (their edges fall inside minutes).
    report.metrics = std::move(*rollup_summaries);
    add_minute_detectors(result, facts, columns, *from, total_bytes, start_mono_ns);
    return result;
  }
  const std::vector<DeviceMetric> first_pass = activity_metrics(total_bytes);
  {
    const DeviceSeries activity = columns.load(facts.info.index, first_pass, WallClock::Skip);
    report.samples = activity.mono_ns.size();
    if (!activity.mono_ns.empty()) result.last_mono_ns = activity.mono_ns.back();
    if (!rollups) add_summaries(report, activity, first_pass);
    add_activity_detectors(report, activity, total_bytes);
    result.phases = segment_rows(segments, SegmentKind::Phase);
    result.epochs = segment_rows(segments, SegmentKind::Epoch);
    add_segment_device(result.phases, segments, activity);
    add_segment_device(result.epochs, segments, activity);
  }
  {
    // Without the clock-event reasons when their rollups gave the throttling.
    const auto energy_metrics = std::span<const DeviceMetric>(kEnergyMetrics).first(
        from && from->throttle ? std::size(kEnergyMetrics) - 1 : std::size(kEnergyMetrics));
    const DeviceSeries energy = columns.load(facts.info.index, energy_metrics, WallClock::Skip);
    if (!rollups) {
      // Power was summarized with the first pass.
      add_summaries(report, energy, std::span<const DeviceMetric>(kEnergyMetrics).subspan(1));
    }
    add_energy_detectors(report, energy);
    if (from && from->throttle && from->throttle->sampled_s > 0) report.throttle = std::move(from->throttle);
  }
  {
    const DeviceSeries link = columns.load(facts.info.index, kLinkMetrics, WallClock::Skip);
    if (!rollups) {
      // Utilization was summarized with the first pass.
      add_summaries(report, link, std::span<const DeviceMetric>(kLinkMetrics).subspan(1));
    }
    add_link_detector(report, link);
  }
  if (rollups) {
    report.metrics = std::move(*rollup_summaries);
    return result;
  }
  std::vector<DeviceMetric> rest;
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    const auto metric = static_cast<DeviceMetric>(m);
    if (summarizable(metric) && !contains(first_pass, metric) && !contains(kEnergyMetrics, metric) &&
        !contains(kLinkMetrics, metric)) {
      rest.push_back(metric);
    }
  }
  for (std::size_t i = 0; i < rest.size(); i += kSummaryMetricsPerPass) {
    const auto group =
        std::span<const DeviceMetric>(rest).subspan(i, std::min(kSummaryMetricsPerPass, rest.size() - i));
    add_summaries(report, columns.load(facts.info.index, group, WallClock::Skip), group);
  }
  // Catalogue order, whatever order the passes read them in.
  std::sort(report.metrics.begin(), report.metrics.end(),
            [](const MetricSummary& a, const MetricSummary& b) { return a.metric < b.metric; });
  return result;
}

// Two devices at a time: a pass's columns at full resolution take ~60 MB
// for 35 hours at 10 Hz (1.26 M samples), with the detectors' own copies
// ~90 MB, so two keep the report under 250 MB, and CI has two cores.
constexpr std::size_t kDeviceWorkers = 2;

std::vector<DeviceResult> device_reports(std::span<const DeviceSeries> devices, const DeviceColumns& columns,
                                         std::span<const Segment> segments, const RollupSource* rollups,
                                         std::int64_t start_mono_ns) {
  std::vector<DeviceResult> results(devices.size());
  parallel_for(devices.size(), kDeviceWorkers, [&](std::size_t i) {
    results[i] = device_report(devices[i], columns, segments, rollups, start_mono_ns);
  });
  return results;
}

std::optional<BalanceReport> balance_of(const std::vector<const DeviceReport*>& devices, DeviceMetric metric) {
  BalanceReport report;
  report.metric = metric;
  for (const DeviceReport* d : devices) {
    if (const Summary* s = d->find(metric)) {
      report.per_gpu_mean.push_back(s->mean);
      report.device_indices.push_back(d->info.index);
    }
  }
  auto balance = load_balance(report.per_gpu_mean);
  if (!balance) return std::nullopt;
  report.balance = *balance;
  return report;
}

// The report's events: all but the dense annotations, and of a kind with
// more than kEventsKeptPerKind its first and last halves of that.
void keep_events(std::span<const Event> events, RunReport& report) {
  // The advisor config the run was recorded with is a file's text, not a
  // moment of the run: the verdict uses it, the event list does not show it.
  const auto shown = [](const Event& e) { return !is_dense_annotation(e) && e.kind != kAdvisorConfigEventKind; };
  std::unordered_map<std::string_view, std::size_t> total;
  for (const Event& e : events) {
    if (shown(e)) ++total[e.kind];
  }
  std::unordered_map<std::string_view, std::size_t> seen;
  for (const Event& e : events) {
    if (!shown(e)) continue;
    const std::size_t n = total[e.kind];
    const std::size_t i = seen[e.kind]++;
    if (n <= kEventsKeptPerKind || i < kEventsKeptPerKind / 2 || i >= n - kEventsKeptPerKind / 2) {
      report.events.push_back(e);
    } else {
      ++report.events_omitted[e.kind];
    }
  }
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

namespace {

RunReport build(const RunData& base, const DeviceColumns& columns, const RollupSource* rollups) {
  RunReport report;
  report.run = base.run;
  std::int64_t end_mono_ns = base.run.start_mono_ns;
  for (const DeviceSeries& series : base.devices) {
    if (!series.mono_ns.empty()) end_mono_ns = std::max(end_mono_ns, series.mono_ns.back());
  }
  if (!base.host.mono_ns.empty()) end_mono_ns = std::max(end_mono_ns, base.host.mono_ns.back());
  if (base.run.end_wall_ns) {
    end_mono_ns = std::max(end_mono_ns, base.run.start_mono_ns + (*base.run.end_wall_ns - base.run.start_wall_ns));
  }
  const std::vector<Segment> segments = segments_from_events(base.events, end_mono_ns);
  report.phases = segment_rows(segments, SegmentKind::Phase);
  report.epochs = segment_rows(segments, SegmentKind::Epoch);

  std::int64_t last_sample_mono_ns = base.run.start_mono_ns;
  for (DeviceResult& r : device_reports(base.devices, columns, segments, rollups, base.run.start_mono_ns)) {
    last_sample_mono_ns = std::max(last_sample_mono_ns, r.last_mono_ns);
    report.devices.push_back(std::move(r.report));
    for (std::size_t k = 0; k < report.phases.size(); ++k) {
      report.phases[k].devices.push_back(std::move(r.phases[k].devices.front()));
    }
    for (std::size_t k = 0; k < report.epochs.size(); ++k) {
      report.epochs[k].devices.push_back(std::move(r.epochs[k].devices.front()));
    }
  }
  if (!base.host.mono_ns.empty()) last_sample_mono_ns = std::max(last_sample_mono_ns, base.host.mono_ns.back());
  // By the wall clock, start to end, or to the last sample of a run that never ended.
  const std::int64_t end_wall_ns =
      base.run.end_wall_ns.value_or(base.run.start_wall_ns + (last_sample_mono_ns - base.run.start_mono_ns));
  report.wall_duration_s = static_cast<double>(end_wall_ns - base.run.start_wall_ns) / 1e9;

  for (std::size_t m = 0; m < kHostMetricCount && m < base.host.values.size(); ++m) {
    if (auto s = summarize(base.host.mono_ns, base.host.values[m])) {
      report.host.push_back({static_cast<HostMetric>(m), *s});
    }
  }
  report.job_gpus = job_gpus_from_events(base.events);
  std::vector<const DeviceReport*> judged;
  for (const DeviceReport& d : report.devices) {
    if (!report.job_gpus.known() || report.job_gpus.contains(d.info.index)) judged.push_back(&d);
  }
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    const auto metric = static_cast<DeviceMetric>(m);
    if (!summarizable(metric)) continue;
    if (auto b = balance_of(judged, metric)) report.balance.push_back(std::move(*b));
    std::vector<const Summary*> per_gpu;
    for (const DeviceReport* d : judged) per_gpu.push_back(d->find(metric));
    if (auto pooled = pool(per_gpu); pooled && pooled->gpus >= 2) report.all_gpus.push_back({metric, *pooled});
  }
  for (const DeviceReport& d : report.devices) {
    if (auto j = d.energy.best()) report.total_energy_joules = report.total_energy_joules.value_or(0) + *j;
  }
  report.processes = base.processes;
  report.training = summarize_training(base.events);
  const std::vector<StepTimingMessage> timing = step_timing_messages(base.events);
  add_segment_step_timing(report.phases, segments, timing);
  add_segment_step_timing(report.epochs, segments, timing);
  keep_events(base.events, report);
  return report;
}

}  // namespace

RunReport build_report(const RunData& data) { return build_report(data, RunDataColumns(data)); }

RunReport build_report(const RunData& base, const DeviceColumns& columns) { return build(base, columns, nullptr); }

RunReport build_report(const RunData& base, const DeviceColumns& columns, const RollupSource& rollups) {
  return build(base, columns, &rollups);
}

}  // namespace gpuwatch
