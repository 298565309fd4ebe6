#include "render/run_status.h"

#include <fmt/format.h>

#include "core/step_timing.h"
#include "render/advisories.h"
#include "base/json_writer.h"
#include "render/report.h"
#include "render/step_timing.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

// " (+12)" beside a value, when there is something to compare with, in the
// value's display format.
std::string change(std::optional<double> now, std::optional<double> before, const DisplayFormat& format) {
  if (!now || !before) return "";
  // " (0)", never " (-0)"
  return fmt::format(" ({})", signed_fixed((*now - *before) / format.divisor, format.decimals));
}

std::optional<double> field(const std::optional<GpuWindow>& w, std::optional<double> GpuWindow::*member) {
  return w ? (*w).*member : std::nullopt;
}

// "  util 87 % (+12)": a metric's tag, its value in the catalogue's unit,
// whole, and its change.
std::string part(const MetricInfo& m, std::optional<double> now, std::optional<double> before) {
  if (!now) return "";
  const DisplayFormat format = rounded(m.display, 0);
  return fmt::format("  {} {}{}", m.tag, display_text(format, *now), change(now, before, format));
}

// "  mem 12.0/80.0 GiB 15 % (+0.5)": to 0.1 GiB.
std::string memory_part(const GpuWindow& n, std::optional<double> before) {
  if (!n.mem_used_bytes) return "";
  const MetricInfo& m = info(DeviceMetric::MemUsedBytes);
  const DisplayFormat format = rounded(m.display, 1);
  std::string out = fmt::format("  {} ", m.tag);
  if (n.mem_total_bytes && *n.mem_total_bytes > 0) {
    out += fmt::format("{}/{} {:.0f} %", display_value(format, *n.mem_used_bytes),
                       display_text(format, *n.mem_total_bytes), 100 * *n.mem_used_bytes / *n.mem_total_bytes);
  } else {
    out += display_text(format, *n.mem_used_bytes);
  }
  return out + change(n.mem_used_bytes, before, format);
}

std::string gpu_line(const GpuStatus& g) {
  const GpuWindow& n = g.now;
  const auto before = [&g](std::optional<double> GpuWindow::*member) { return field(g.before, member); };
  return fmt::format("  GPU {}", g.index) +
         part(info(DeviceMetric::GpuUtilPercent), n.util_percent, before(&GpuWindow::util_percent)) +
         memory_part(n, before(&GpuWindow::mem_used_bytes)) +
         part(info(DeviceMetric::PowerWatts), n.power_watts, before(&GpuWindow::power_watts)) +
         part(info(DeviceMetric::TempGpuCelsius), n.temp_celsius, before(&GpuWindow::temp_celsius)) +
         part(info(DeviceMetric::TempJunctionCelsius), n.temp_junction_celsius,
              before(&GpuWindow::temp_junction_celsius));
}

void write_window(JsonWriter& w, const GpuWindow& g) {
  w.begin_object();
  w.field("util_percent", g.util_percent);
  w.field("mem_used_bytes", g.mem_used_bytes);
  w.field("mem_total_bytes", g.mem_total_bytes);
  w.field("power_watts", g.power_watts);
  w.field("temp_celsius", g.temp_celsius);
  // Only where the card has the sensor: NVIDIA and Intel have none.
  if (g.temp_junction_celsius) w.field("temp_junction_celsius", g.temp_junction_celsius);
  w.end_object();
}

void write_host(JsonWriter& w, const HostWindow& h) {
  w.begin_object();
  w.field("cpu_percent", h.cpu_percent);
  w.field("tree_cpu_percent", h.tree_cpu_percent);
  w.field("tree_rss_bytes", h.tree_rss_bytes);
  w.end_object();
}

void write_progress(JsonWriter& w, const Progress& p) {
  w.begin_object();
  w.field("step", p.step);
  w.field("epoch", p.epoch);
  w.field("loss", p.loss);
  w.end_object();
}

// "now": {...}, "before": {...} or null.
template <typename T, typename Write>
void write_now_and_before(JsonWriter& w, const T& now, const std::optional<T>& before, Write write) {
  w.key("now");
  write(w, now);
  w.key("before");
  if (before) {
    write(w, *before);
  } else {
    w.null();
  }
}

}  // namespace

std::string render_run_status_text(const RunStatusReport& s) {
  const RunInfo& r = s.run;
  std::string out = fmt::format("Run {}{}  {}, {} — verdict: {}\n", r.id.empty() ? "(file)" : r.id,
                                r.name.empty() ? "" : " (" + r.name + ")",
                                s.live ? "recording" : std::string(to_string(r.status)), human_duration(s.age_s),
                                s.verdict);
  if (s.reference_end_ago_s) {
    out += fmt::format("Last {} (in brackets: the change since {} earlier)\n", human_duration(s.window_s),
                       human_duration(*s.reference_end_ago_s));
  } else {
    out += fmt::format("Last {}\n", human_duration(s.window_s));
  }
  std::vector<int> recorded;
  for (const GpuStatus& g : s.gpus) recorded.push_back(g.index);
  if (const std::string job = describe_job_gpus(s.job_gpus, s.run, recorded); !job.empty()) {
    out += "Job GPUs: " + job + "\n";
  }
  for (const GpuStatus& g : s.gpus) out += gpu_line(g) + (g.job ? "" : "  (not the job's)") + "\n";
  if (s.gpus.empty()) out += "  no GPU was recorded\n";
  const HostWindow& h = s.host_now;
  if (h.cpu_percent || h.tree_cpu_percent) {
    out += "  host";
    out += part(info(HostMetric::CpuPercent), h.cpu_percent, s.host_before ? s.host_before->cpu_percent : std::nullopt);
    // The command's own, after its words ("command CPU", "command RSS").
    const auto command = [](HostMetric m, std::optional<double> v) {
      return v ? fmt::format("{} {}", info(m).short_label, display_text(rounded(info(m).display, 0), *v)) : "";
    };
    if (h.tree_cpu_percent) out += "  " + command(HostMetric::TreeCpuPercent, h.tree_cpu_percent);
    if (h.tree_rss_bytes) {
      out += (h.tree_cpu_percent ? ", " : "  ") + command(HostMetric::TreeRssBytes, h.tree_rss_bytes);
    }
    out += "\n";
  }
  const Progress& p = s.progress_now;
  if (p.step || p.epoch || p.loss) {
    out += "Training:";
    if (p.step) {
      out += fmt::format(" step {}", *p.step);
      if (s.steps_per_second) out += fmt::format(" ({:.2f} steps/s since then)", *s.steps_per_second);
    }
    if (p.epoch) out += fmt::format("{} epoch {}", p.step ? "," : "", *p.epoch);
    if (p.loss) {
      out += fmt::format("{} loss {:.4g}", p.step || p.epoch ? "," : "", *p.loss);
      if (s.progress_before.loss) out += fmt::format(" (was {:.4g})", *s.progress_before.loss);
    }
    out += "\n";
  }
  if (s.step_timing_now) {
    out += fmt::format("Measured by the loop: {}", step_timing_line(*s.step_timing_now));
    if (s.step_timing_run && s.step_timing_run->messages != s.step_timing_now->messages) {
      out += fmt::format("; whole run: {} {}", kDataWaitShareInfo.short_label, data_wait_text(*s.step_timing_run));
    }
    out += "\n";
  } else if (s.step_timing_run) {
    out += fmt::format("Measured by the loop (whole run, none in the last {}): {}\n", human_duration(s.window_s),
                       step_timing_line(*s.step_timing_run));
  }
  out += s.advisories.empty() ? "Advisories: none\n" : "Advisories:\n" + advisories_text(s.advisories);
  return out;
}

std::string render_run_status_json(const RunStatusReport& s) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kStatusSchemaVersion);
  w.key("run").begin_object();
  w.field("id", s.run.id);
  w.field("name", s.run.name);
  w.field("status", to_string(s.run.status));
  w.field("end_reason", s.run.end_reason);
  w.end_object();
  w.field("live", s.live);
  w.field("age_s", s.age_s);
  w.field("verdict", s.verdict);
  w.field("window_s", s.window_s);
  w.field("reference_end_ago_s", s.reference_end_ago_s);
  write_job_gpus_json(w, s.job_gpus);
  w.key("gpus").begin_array();
  for (const GpuStatus& g : s.gpus) {
    w.begin_object();
    w.field("gpu", g.index);
    w.field("name", g.name);
    w.field("job", g.job);
    write_now_and_before(w, g.now, g.before, write_window);
    w.end_object();
  }
  w.end_array();
  w.key("host").begin_object();
  write_now_and_before(w, s.host_now, s.host_before, write_host);
  w.end_object();
  w.key("training").begin_object();
  write_now_and_before(w, s.progress_now, std::optional(s.progress_before), write_progress);
  w.field("steps_per_second", s.steps_per_second);
  write_step_timing(w, "step_timing", s.step_timing_now);
  write_step_timing(w, "step_timing_run", s.step_timing_run);
  w.end_object();
  w.key("advisories");
  write_advisories_json(w, s.advisories);
  w.end_object();
  out.push_back('\n');
  return out;
}

std::string render_run_status(const RunStatusReport& s, OutputFormat format) {
  return format == OutputFormat::json ? render_run_status_json(s) : render_run_status_text(s);
}

}  // namespace gpuwatch
