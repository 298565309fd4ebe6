#include "runs/run_status_window.h"

#include <algorithm>
#include <vector>

#include "analysis/advisor/advisor.h"
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

}  // namespace

RunStatusReport status_over_windows(const RunInfo& run, const RunRead& read, const StatusWindows& windows,
                                    const AdvisorConfig& config) {
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
                                         : stored_run_verdict(run, read, config, windows.now_end_mono_ns).advisories;
  const double covered_s = std::min(config.window_s, age_s);
  return build_run_status(RunStatusInput{now_report, before_report ? &*before_report : nullptr,
                                         windows.now_end_mono_ns, windows.before_end_mono_ns, now.events, advisories,
                                         age_s, covered_s, run.status == RunStatus::Recording});
}

RunVerdict stored_run_verdict(const RunInfo& run, const RunRead& read, const AdvisorConfig& config,
                              std::int64_t end_mono_ns) {
  const RunData whole = read(LoadOptions{});
  const double age_s = static_cast<double>(end_mono_ns - run.start_mono_ns) / 1e9;
  return finished_run_verdict(whole, build_report(whole), age_s, config);
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
