#include "analysis/run_status.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "analysis/run_verdict.h"
#include "analysis/training.h"

namespace gpuwatch {

namespace {

std::optional<double> mean_of(const Summary* s) { return s ? std::optional(s->mean) : std::nullopt; }

GpuWindow window_of(const DeviceReport& d) {
  GpuWindow w;
  w.util_percent = mean_of(d.find(DeviceMetric::GpuUtilPercent));
  w.mem_used_bytes = mean_of(d.find(DeviceMetric::MemUsedBytes));
  w.mem_total_bytes = mean_of(d.find(DeviceMetric::MemTotalBytes));
  if (!w.mem_total_bytes) w.mem_total_bytes = d.info.static_values.get(DeviceMetric::MemTotalBytes);
  w.power_watts = mean_of(d.find(DeviceMetric::PowerWatts));
  w.temp_celsius = mean_of(d.find(DeviceMetric::TempGpuCelsius));
  w.temp_junction_celsius = mean_of(d.find(DeviceMetric::TempJunctionCelsius));
  return w;
}

HostWindow host_of(const RunReport& r) {
  return {mean_of(r.find_host(HostMetric::CpuPercent)), mean_of(r.find_host(HostMetric::TreeCpuPercent)),
          mean_of(r.find_host(HostMetric::TreeRssBytes))};
}


}  // namespace

Progress progress_at(const std::vector<Event>& events, std::int64_t end_mono_ns) {
  Progress p;
  for (const Event& e : events) {
    if (e.time.mono_ns > end_mono_ns) break;
    if (e.kind == "step") {
      std::int64_t n = 0;
      const auto [ptr, ec] = std::from_chars(e.message.data(), e.message.data() + e.message.size(), n);
      if (ec == std::errc() && ptr == e.message.data() + e.message.size()) p.step = n;
    } else if (e.kind == "epoch" && !e.message.empty()) {  // empty: the epoch ended
      p.epoch = e.message;
    } else if (e.kind == "log") {
      for (const auto& [name, v] : parse_log_message(e.message)) {
        if (name == "loss") p.loss = v;
      }
    }
  }
  return p;
}

RunStatusReport build_run_status(const RunStatusInput& in) {
  RunStatusReport s;
  s.run = in.now.run;
  s.live = in.live;
  s.age_s = in.age_s;
  s.window_s = in.window_s;
  for (const DeviceReport& d : in.now.devices) {
    GpuStatus g{d.info.index, d.info.name, window_of(d), std::nullopt,
                !in.now.job_gpus.known() || in.now.job_gpus.contains(d.info.index)};
    if (in.before) {
      for (const DeviceReport& b : in.before->devices) {
        if (b.info.index == d.info.index && b.samples > 0) g.before = window_of(b);
      }
    }
    s.gpus.push_back(std::move(g));
  }
  s.job_gpus = in.now.job_gpus;
  s.host_now = host_of(in.now);
  if (in.before) s.host_before = host_of(*in.before);
  s.progress_now = progress_at(in.events, in.now_end_mono_ns);
  if (in.before_end_mono_ns) {
    s.reference_end_ago_s = static_cast<double>(in.now_end_mono_ns - *in.before_end_mono_ns) / 1e9;
    s.progress_before = progress_at(in.events, *in.before_end_mono_ns);
    if (s.progress_now.step && s.progress_before.step && *s.reference_end_ago_s > 0) {
      s.steps_per_second =
          static_cast<double>(*s.progress_now.step - *s.progress_before.step) / *s.reference_end_ago_s;
    }
  }
  const std::vector<StepTimingMessage> timing = step_timing_messages(in.events);
  const auto window_ns = static_cast<std::int64_t>(in.window_s * 1e9);
  s.step_timing_now = sum_step_timing(timing, in.now_end_mono_ns - window_ns, in.now_end_mono_ns + 1);
  s.step_timing_run = sum_step_timing(timing, std::numeric_limits<std::int64_t>::min(), in.now_end_mono_ns + 1);
  s.advisories = in.advisories;
  s.verdict = verdict_word(s.advisories);
  return s;
}

}  // namespace gpuwatch
