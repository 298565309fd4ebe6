#include "runs/run_status_window.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <vector>

#include "analysis/advisor/advisor.h"
#include "analysis/rollup_stats.h"
#include "analysis/run_report.h"

namespace gpuwatch {

namespace {

// The advisor over the window "now", as the recorder's live advisor sees it.
std::vector<Advisory> live_advisories(const RunRead& read, const RunData& now, const RunReport& now_report,
                                      double age_s, const AdvisorConfig& config, const RunData& hang_span) {
  // A leak shows across epochs: the whole run's memory, when it has them.
  std::vector<EpochPeak> epochs;
  const auto epoch_events =
      std::count_if(now.events.begin(), now.events.end(), [](const Event& e) { return e.kind == "epoch" && !e.message.empty(); });
  if (epoch_events > config.leak_min_epochs) {
    LoadOptions memory;
    memory.metrics = std::vector<DeviceMetric>{DeviceMetric::MemUsedBytes};
    memory.host = false;
    RunData history = read(memory);
    history.events = now.events;
    epochs = epoch_peaks(history);
  }
  return advise(AdvisorInput{now_report, now, age_s, epochs, &hang_span}, config);
}

// A run's columns read through RunRead, one device at a time. The reader
// may not be safe to call from several threads (the report reads two
// devices at once), so calls take turns.
class ReadColumns final : public DeviceColumns {
 public:
  explicit ReadColumns(const RunRead& read) : read_(read) {}
  [[nodiscard]] DeviceSeries load(int index, std::span<const DeviceMetric> metrics, WallClock wall) const override {
    LoadOptions options;
    options.device = index;
    options.metrics = std::vector<DeviceMetric>(metrics.begin(), metrics.end());
    options.host = false;
    options.device_wall_clock = wall == WallClock::Load;
    std::lock_guard lock(mutex_);
    RunData data = read_(options);
    for (DeviceSeries& s : data.devices) {
      if (s.info.index == index) return std::move(s);
    }
    DeviceSeries none;
    none.info.index = index;
    none.values.resize(kDeviceMetricCount);
    return none;
  }

 private:
  const RunRead& read_;
  mutable std::mutex mutex_;
};

struct SampleTimes {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  [[nodiscard]] bool any() const { return first <= last; }
};

SampleTimes sample_times(const RunData& data) {
  SampleTimes t;
  const auto add = [&t](std::span<const std::int64_t> mono_ns) {
    if (mono_ns.empty()) return;
    t.first = std::min(t.first, mono_ns.front());
    t.last = std::max(t.last, mono_ns.back());
  };
  for (const DeviceSeries& s : data.devices) add(s.mono_ns);
  add(data.host.mono_ns);
  return t;
}

// The run's first or last sample, read from a minute at that edge and
// wider spans only when it has none there (no column is decoded).
std::int64_t edge_sample_ns(const RunRead& read, const RunInfo& run, std::int64_t end_mono_ns, bool first) {
  LoadOptions options;
  options.metrics = std::vector<DeviceMetric>{};
  options.device_wall_clock = false;
  for (std::int64_t span_ns = 60'000'000'000;; span_ns *= 4) {
    const bool whole = span_ns >= end_mono_ns - run.start_mono_ns;
    options.since_mono_ns = first || whole ? std::nullopt : std::optional(end_mono_ns - span_ns);
    options.until_mono_ns = !first || whole ? std::nullopt : std::optional(run.start_mono_ns + span_ns);
    options.host_samples = true;
    const SampleTimes t = sample_times(read(options));
    if (t.any()) return first ? t.first : t.last;
    if (whole) return first ? run.start_mono_ns : end_mono_ns;
  }
}

// Whether the verdict holds a hang of at least `s` seconds without progress.
bool hang_fills(const RunVerdict& v, double s) {
  return std::any_of(v.advisories.begin(), v.advisories.end(), [s](const Advisory& a) {
    return a.id == "job.hung" && std::any_of(a.evidence.begin(), a.evidence.end(), [s](const Evidence& e) {
             return e.name == "no_progress_s" && e.value >= s;
           });
  });
}

}  // namespace

bool judged_from_columns(const RunData& base, std::int64_t end_mono_ns) {
  if (base.run.interval_s <= 0) return false;
  const double span_s = static_cast<double>(end_mono_ns - base.run.start_mono_ns) / 1e9;
  return span_s / base.run.interval_s * static_cast<double>(base.devices.size()) > kWholeRunVerdictMaxSamples;
}

RunVerdict column_run_verdict(const RunData& base, const RunReport& whole_report, const RunRead& read,
                              const DeviceColumns& columns, const AdvisorConfig& config, std::int64_t end_mono_ns) {
  const double age_s = static_cast<double>(end_mono_ns - base.run.start_mono_ns) / 1e9;
  const std::int64_t first_ns = edge_sample_ns(read, base.run, end_mono_ns, true);
  const std::int64_t last_ns = edge_sample_ns(read, base.run, end_mono_ns, false);
  // The hang rule and the "when" of the rules read the run's end at full
  // resolution: the advisor's span, and four times more while a hang fills
  // more than half of what was read (its stretch may begin before).
  for (double span_s = advisor_span_s(config);; span_s *= 4) {
    LoadOptions end;
    end.since_mono_ns = end_mono_ns - static_cast<std::int64_t>(span_s * 1e9);
    const RunData end_span = read(end);
    RunVerdict v = finished_run_verdict(ColumnRun{base, end_span, columns, first_ns, last_ns}, whole_report, age_s, config);
    if (span_s >= age_s || !hang_fills(v, span_s / 2)) return v;
  }
}

RunStatusReport status_over_windows(const RunInfo& run, const RunRead& read, const StatusWindows& windows,
                                    const AdvisorConfig& config, const RunSources& sources) {
  const auto window_ns = static_cast<std::int64_t>(config.window_s * 1e9);
  // The hang rule needs hang_after_s of samples, more than the window by
  // default: one read of the longer span, the window cut from it.
  LoadOptions span;
  span.since_mono_ns = windows.now_end_mono_ns - static_cast<std::int64_t>(advisor_span_s(config) * 1e9);
  const RunData hang_span = read(span);
  const RunData now = advisor_window(hang_span, config, windows.now_end_mono_ns);
  const RunReport now_report = build_report(now);
  std::optional<RunReport> before_report;
  if (windows.before_end_mono_ns) {
    LoadOptions before_span;
    before_span.since_mono_ns = *windows.before_end_mono_ns - window_ns;
    before_span.until_mono_ns = *windows.before_end_mono_ns;
    before_report = build_report(read(before_span));
  }
  const double age_s = static_cast<double>(windows.now_end_mono_ns - run.start_mono_ns) / 1e9;
  const std::vector<Advisory> advisories =
      run.status == RunStatus::Recording ? live_advisories(read, now, now_report, age_s, config, hang_span)
                                         : stored_run_verdict(run, read, config, windows.now_end_mono_ns, sources).advisories;
  const double covered_s = std::min(config.window_s, age_s);
  return build_run_status(RunStatusInput{now_report, before_report ? &*before_report : nullptr,
                                         windows.now_end_mono_ns, windows.before_end_mono_ns, now.events, advisories,
                                         age_s, covered_s, run.status == RunStatus::Recording});
}

RunVerdict stored_run_verdict(const RunInfo& run, const RunRead& read, const AdvisorConfig& config,
                              std::int64_t end_mono_ns, const RunSources& sources) {
  LoadOptions base_only;
  base_only.device_samples = false;
  base_only.host_cores = false;  // no rule reads them
  RunData base = read(base_only);
  // A file read into memory gives its samples whatever was asked: judged whole.
  const bool in_memory =
      std::any_of(base.devices.begin(), base.devices.end(), [](const DeviceSeries& d) { return !d.mono_ns.empty(); });
  if (in_memory || !judged_from_columns(base, end_mono_ns)) {
    const RunData whole = in_memory ? std::move(base) : read(LoadOptions{});
    const double age_s = static_cast<double>(end_mono_ns - run.start_mono_ns) / 1e9;
    return finished_run_verdict(whole, build_report(whole), age_s, config);
  }
  const ReadColumns read_columns(read);
  const DeviceColumns& columns = sources.columns ? *sources.columns : read_columns;
  const RunReport report =
      sources.rollups ? build_report(base, columns, *sources.rollups) : build_report(base, columns);
  return column_run_verdict(base, report, read, columns, config, end_mono_ns);
}

AdvisorConfig run_advisor_config(const RunRead& read, const AdvisorConfig& fallback, bool given) {
  if (given) return fallback;
  LoadOptions events_only;
  events_only.device_samples = false;
  events_only.host_samples = false;
  return advisor_config_for_run(read(events_only).events, fallback, false);
}

std::int64_t stored_run_end_mono_ns(const RunInfo& run) {
  const std::int64_t end_wall = run.end_wall_ns.value_or(run.heartbeat_wall_ns);
  return std::max(run.start_mono_ns, run.start_mono_ns + (end_wall - run.start_wall_ns));
}

}  // namespace gpuwatch
