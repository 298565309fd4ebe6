#include "analysis/advisor/advisor.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "analysis/advisor/causes.h"
#include "analysis/advisor/rules.h"
#include "analysis/segments.h"
#include "analysis/training.h"

namespace gpuwatch {

namespace advisor_rules {

std::span<const double> column(const DeviceSeries& series, DeviceMetric metric) {
  const auto m = static_cast<std::size_t>(metric);
  return m < series.values.size() && series.values[m].size() == series.mono_ns.size()
             ? std::span<const double>(series.values[m])
             : std::span<const double>();
}

JudgedSamples::JudgedSamples(const DeviceView& d, DeviceMetric metric) : series_(d.series) {
  if (series_ || !d.columns) return;
  const DeviceMetric metrics[] = {metric};
  loaded_ = d.columns->load(d.report->info.index, metrics, WallClock::Skip);
}

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / kGiB); }
std::string percent(double value) {
  // Whole numbers where that is exact enough: "49.6 %" must not read "50 %"
  // next to a threshold of 50.
  return std::abs(value - std::round(value)) < 0.05 ? fmt::format("{:.0f} %", value) : fmt::format("{:.1f} %", value);
}
std::string seconds(double value) {
  return value >= 10 ? fmt::format("{:.0f} s", value) : fmt::format("{:.1f} s", value);
}

}  // namespace advisor_rules

namespace {

using advisor_rules::Context;
using advisor_rules::DeviceView;
using advisor_rules::ModelVerdict;

std::optional<double> total_memory(const DeviceReport& d) {
  if (auto v = d.info.static_values.get(DeviceMetric::MemTotalBytes); v && *v > 0) return *v;
  if (const Summary* s = d.find(DeviceMetric::MemTotalBytes); s && s->max > 0) return s->max;
  return std::nullopt;
}

// An idle card holds about 0.6 GiB of its own (an H200, no process); a
// CUDA context adds about 0.5 GiB, a model more.
constexpr double kHeldMemoryBytes = 1024.0 * 1024 * 1024;

// A GPU the job holds memory on, or that was busy once in the window: a
// starved loop can read 0 % utilization for minutes while it holds its
// model on the card.
bool active(const DeviceReport& d) {
  const Summary* util = d.find(DeviceMetric::GpuUtilPercent);
  const Summary* memory = d.find(DeviceMetric::MemUsedBytes);
  return (util && util->max > 0) || (memory && memory->max >= kHeldMemoryBytes);
}

// The job's GPUs as the recorder decided (job_gpus.h): those
// CUDA_VISIBLE_DEVICES named, or those the command's processes were seen on.
// Until the command shows on one, every active GPU. Runs recorded without
// that decision (older, imported): where the driver lists processes, the
// GPUs it saw any on, else the active ones.
bool in_use(const RunReport& r, const DeviceReport& d) {
  if (d.lost_at_wall_ns) return false;
  switch (r.job_gpus.source) {
    case JobGpuSource::VisibleDevices:
    case JobGpuSource::ProcessTree: return r.job_gpus.contains(d.info.index);
    case JobGpuSource::CommandNotSeen: return active(d);
    case JobGpuSource::Unknown: break;
  }
  if (!r.processes.empty()) {
    return std::any_of(r.processes.begin(), r.processes.end(),
                       [&](const ProcessRecord& p) { return p.device_index == d.info.index; });
  }
  return active(d);
}

// The flag wins; otherwise the latest model_params annotation decides.
ModelVerdict model_verdict(const RunData& data, const AdvisorConfig& config) {
  ModelVerdict v;
  if (auto params = latest_logged(data.events, "model_params"); params && *params >= 0) v.params = params;
  v.size = config.model_size;
  if (v.size == ModelSize::Auto && v.params) {
    v.size = *v.params >= config.large_model_params ? ModelSize::Large : ModelSize::Small;
  }
  return v;
}

std::int64_t last_sample_ns(const RunData& data) {
  std::int64_t end = data.run.start_mono_ns;
  for (const DeviceSeries& s : data.devices) {
    if (!s.mono_ns.empty()) end = std::max(end, s.mono_ns.back());
  }
  if (!data.host.mono_ns.empty()) end = std::max(end, data.host.mono_ns.back());
  return end;
}

std::optional<double> peak_within(const DeviceSeries& s, std::int64_t begin_ns, std::int64_t end_ns) {
  const auto memory = advisor_rules::column(s, DeviceMetric::MemUsedBytes);
  if (memory.empty()) return std::nullopt;
  const auto begin = std::lower_bound(s.mono_ns.begin(), s.mono_ns.end(), begin_ns) - s.mono_ns.begin();
  const auto end = std::lower_bound(s.mono_ns.begin(), s.mono_ns.end(), end_ns) - s.mono_ns.begin();
  std::optional<double> peak;
  for (auto i = begin; i < end; ++i) {
    const double v = memory[static_cast<std::size_t>(i)];
    if (!std::isnan(v)) peak = std::max(peak.value_or(v), v);
  }
  return peak;
}

const DeviceSeries* device_series(const RunData& data, int index) {
  const auto it = std::find_if(data.devices.begin(), data.devices.end(),
                               [&](const DeviceSeries& s) { return s.info.index == index; });
  return it == data.devices.end() ? nullptr : &*it;
}

int severity_rank(Severity s) { return static_cast<int>(s); }

// The first sample of any series: where the samples the rules judge begin.
std::int64_t first_sample_ns(const RunData& data) {
  std::int64_t begin = std::numeric_limits<std::int64_t>::max();
  for (const DeviceSeries& s : data.devices) {
    if (!s.mono_ns.empty()) begin = std::min(begin, s.mono_ns.front());
  }
  if (!data.host.mono_ns.empty()) begin = std::min(begin, data.host.mono_ns.front());
  return begin == std::numeric_limits<std::int64_t>::max() ? data.run.start_mono_ns : begin;
}

// The messages over the samples the rules judge (the window, or a finished
// run's whole span), and those after the last sample: a finished run's last
// message may follow it.
std::optional<StepTiming> window_step_timing(const AdvisorInput& in, const AdvisorConfig& config) {
  const RunData& data = in.recent_data;
  const std::int64_t begin = in.columns && in.first_sample_ns ? *in.first_sample_ns : first_sample_ns(data);
  const std::vector<StepTimingMessage> messages = step_timing_messages(data.events);
  auto timing = sum_step_timing(messages, begin, std::numeric_limits<std::int64_t>::max());
  if (!timing || timing->steps < config.data_wait_min_steps) return std::nullopt;
  return timing;
}

}  // namespace

namespace {

// The completed epochs of a run whose last sample is at end_ns, without peaks.
std::vector<EpochPeak> completed_epochs(const std::vector<Event>& events, std::int64_t end_ns) {
  std::vector<Segment> epochs = segments_from_events(events, end_ns);
  std::erase_if(epochs, [](const Segment& s) { return s.kind != SegmentKind::Epoch; });
  // Still open, or cut short by the run's end (an epoch_end line closes one for good).
  if (!epochs.empty() && epochs.back().end_mono_ns >= end_ns) epochs.pop_back();
  std::vector<EpochPeak> out;
  for (const Segment& e : epochs) out.push_back({e.label, e.start_mono_ns, e.end_mono_ns, {}});
  return out;
}

void add_peaks(std::vector<EpochPeak>& epochs, const DeviceSeries& s) {
  for (EpochPeak& e : epochs) {
    if (auto p = peak_within(s, e.start_mono_ns, e.end_mono_ns)) e.devices.push_back({s.info.index, *p});
  }
}

}  // namespace

std::vector<EpochPeak> epoch_peaks(const RunData& data) {
  std::vector<EpochPeak> out = completed_epochs(data.events, last_sample_ns(data));
  for (const DeviceSeries& s : data.devices) add_peaks(out, s);
  return out;
}

std::vector<EpochPeak> epoch_peaks(const RunData& base, const DeviceColumns& columns, std::int64_t end_ns) {
  std::vector<EpochPeak> out = completed_epochs(base.events, end_ns);
  if (out.empty()) return out;
  constexpr DeviceMetric kMemory[] = {DeviceMetric::MemUsedBytes};
  for (const DeviceSeries& facts : base.devices) add_peaks(out, columns.load(facts.info.index, kMemory, WallClock::Skip));
  return out;
}

RunData advisor_window(const RunData& span, const AdvisorConfig& config, std::int64_t end_mono_ns) {
  RunData window = span;
  drop_samples_before(window, end_mono_ns - static_cast<std::int64_t>(config.window_s * 1e9));
  return window;
}

std::vector<Advisory> advise(const AdvisorInput& in, const AdvisorConfig& config) {
  Context ctx{in, config, in.run_age_s >= config.warmup_s, {}, model_verdict(in.recent_data, config),
              std::min(config.window_s, in.run_age_s) / 2, window_step_timing(in, config)};
  for (const DeviceReport& d : in.recent.devices) {
    if (!in_use(in.recent, d)) continue;
    const DeviceSeries* series = device_series(in.recent_data, d.info.index);
    if (!in.columns) {
      ctx.devices.push_back({&d, series, total_memory(d), series, nullptr});
      continue;
    }
    // Judged from the columns; the end is the hang span's.
    const DeviceSeries* end = in.hang_span ? device_series(*in.hang_span, d.info.index) : nullptr;
    ctx.devices.push_back({&d, nullptr, total_memory(d), end, in.columns});
  }
  std::vector<Advisory> out;
  advisor_rules::memory_rules(ctx, out);
  advisor_rules::utilization_rules(ctx, out);
  advisor_rules::hardware_rules(ctx, out);
  advisor_rules::kernel_rules(ctx, out);
  advisor_rules::distributed_rules(ctx, out);
  relate_causes(out);
  order_advisories(out);
  return out;
}

void order_advisories(std::vector<Advisory>& advisories) {
  // Causes before what they explain, whatever the severities.
  std::stable_sort(advisories.begin(), advisories.end(), [](const Advisory& a, const Advisory& b) {
    if (a.explained_by.has_value() != b.explained_by.has_value()) return !a.explained_by;
    if (a.severity != b.severity) return severity_rank(a.severity) > severity_rank(b.severity);
    if (a.id != b.id) return a.id < b.id;
    return a.device_index < b.device_index;
  });
}

}  // namespace gpuwatch
