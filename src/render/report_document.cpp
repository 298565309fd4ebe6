// The report for people: one Document, rendered as text or Markdown.
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "render/advisories.h"
#include "render/document.h"
#include "render/job.h"
#include "render/report.h"
#include "render/report_training.h"
#include "render/step_timing.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

// The metrics people read first; the JSON report has all of them. Labels,
// units and decimals are the catalogue's (core/metrics.h).
// GPM's rows (Hopper and newer) follow utilization: how much of the chip the
// busy time used, which utilization alone does not say.
constexpr DeviceMetric kDeviceRows[] = {
    DeviceMetric::GpuUtilPercent,      DeviceMetric::SmActivePercent,     DeviceMetric::SmOccupancyPercent,
    DeviceMetric::TensorActivePercent, DeviceMetric::DramBwUtilPercent,   DeviceMetric::MemUtilPercent,
    DeviceMetric::MemUsedBytes,        DeviceMetric::PowerWatts,          DeviceMetric::TempGpuCelsius,
    DeviceMetric::TempJunctionCelsius, DeviceMetric::TempMemCelsius,      DeviceMetric::SmClockMhz,
    DeviceMetric::MemClockMhz,         DeviceMetric::FanPercent,          DeviceMetric::PcieTxBytesPerSec,
    DeviceMetric::PcieRxBytesPerSec,   DeviceMetric::NvlinkTxBytesPerSec, DeviceMetric::NvlinkRxBytesPerSec,
};

// A segment's columns per GPU: the means of these metrics, headed and shown
// as the catalogue says.
struct SegmentColumn {
  DeviceMetric metric;
  std::optional<Summary> SegmentDeviceStats::*stats;
};
constexpr SegmentColumn kSegmentColumns[] = {{DeviceMetric::GpuUtilPercent, &SegmentDeviceStats::util_percent},
                                             {DeviceMetric::MemUsedBytes, &SegmentDeviceStats::mem_used_bytes},
                                             {DeviceMetric::PowerWatts, &SegmentDeviceStats::power_watts}};

// Process names are single words: a long one is shortened with "…".
constexpr std::size_t kProcessNameColumns = 40;

bool in_rows(DeviceMetric m) { return std::find(std::begin(kDeviceRows), std::end(kDeviceRows), m) != std::end(kDeviceRows); }

std::string metric_label(DeviceMetric m) { return in_rows(m) ? column_title(info(m)) : std::string(info(m).name); }

// A value in the unit people read it in.
std::string short_value(DeviceMetric m, double v) {
  if (m == DeviceMetric::MemUsedBytes) return human_bytes(v);
  if (in_rows(m)) return display_value(info(m).display, v);
  return fmt::format("{:.4g}", v);
}

std::string seconds_and_percent(double seconds, double of_s) {
  return fmt::format("{} ({} %)", human_duration(seconds), fixed(of_s > 0 ? seconds / of_s * 100 : 0.0, 1));
}

void add_statistics(Document& doc, const DeviceReport& d) {
  TextTable t;
  t.header = {"metric", "mean", "min", "max", "p50", "p95", "std"};
  for (DeviceMetric m : kDeviceRows) {
    const Summary* s = d.find(m);
    if (!s) continue;
    auto f = [&](double v) { return display_value(info(m).display, v); };
    t.rows.push_back({column_title(info(m)), f(s->mean), f(s->min), f(s->max), f(s->p50), f(s->p95), f(s->std)});
  }
  doc.table(std::move(t));
}

void add_energy(Document& doc, const EnergyEstimate& e) {
  if (e.counter_joules) {
    doc.line(fmt::format("energy: {:.1f} J ({:.4f} Wh) from the driver's energy counter", *e.counter_joules,
                         *e.counter_joules / 3600));
    if (e.integrated_counter_span_joules && *e.counter_joules > 0) {
      const double diff = (*e.integrated_counter_span_joules - *e.counter_joules) / *e.counter_joules * 100;
      doc.line(fmt::format("        integrated power over the same span: {:.1f} J ({} %)",
                           *e.integrated_counter_span_joules, signed_fixed(diff, 1)));
    }
  } else if (e.integrated_joules) {
    doc.line(fmt::format("energy: {:.1f} J ({:.4f} Wh) by integrating power (no energy counter)", *e.integrated_joules,
                         *e.integrated_joules / 3600));
  }
}

void add_idle_gaps(Document& doc, const IdleGapReport& g) {
  if (g.count == 0) {
    doc.line("idle gaps: none while busy (utilization never under 5 % between the first and last busy sample)");
  } else {
    std::string s = fmt::format("idle gaps: {} under 5 % utilization, {} in total, longest {}", g.count,
                                seconds_and_percent(g.total_s, g.busy_span_s), human_duration(g.longest_s));
    if (g.typical_period_s) s += fmt::format(", every {} typically", human_duration(*g.typical_period_s));
    doc.line(s);
    if (g.regular) {
      doc.line(fmt::format("  regular pattern (period spread {:.0f} %): the signature of an input-bound loop",
                           *g.period_cv * 100));
    }
  }
  if (g.leading_idle_s > 0 || g.trailing_idle_s > 0) {
    doc.line(fmt::format("  idle before the first busy sample {}, after the last {}", human_duration(g.leading_idle_s),
                         human_duration(g.trailing_idle_s)));
  }
}

void add_throttle(Document& doc, const ThrottleReport& t) {
  if (t.throttled_s <= 0) {
    doc.line(fmt::format("throttling: none in {} of clock-reason samples", human_duration(t.sampled_s)));
    return;
  }
  std::string s = fmt::format("throttling: {} of the time (power {:.1f} %, thermal {:.1f} %):",
                              fmt::format("{:.1f} %", t.throttled_percent), t.power_percent, t.thermal_percent);
  for (const ThrottleTime& r : t.by_reason) {
    if (r.reason.kind != ThrottleKind::NotThrottling) s += fmt::format(" {} {:.1f} %", r.reason.name, r.percent);
  }
  doc.line(s);
}

void add_memory(Document& doc, const MemoryTrend& m, std::int64_t start_mono_ns) {
  std::string s = "memory trend: ";
  if (m.span_s >= kMemoryRateMinSpanS) s += fmt::format("{} MiB/h; ", signed_fixed(m.slope_bytes_per_hour / kMiB, 1));
  s += fmt::format("last tenth vs first tenth {} MiB", signed_fixed(m.growth_bytes / kMiB, 1));
  if (m.growth_percent_of_total) s += fmt::format(" ({} % of the device)", signed_fixed(*m.growth_percent_of_total, 2));
  if (m.leak_suspected) s += ": steady growth, a leak is possible";
  doc.line(s);
  for (const MemoryDrop& drop : m.drops) {
    doc.line(fmt::format("  sudden drop {} into the run: {} -> {}",
                         human_duration(static_cast<double>(drop.time_ns - start_mono_ns) / 1e9), human_bytes(drop.from_bytes),
                         human_bytes(drop.to_bytes)));
  }
}

void add_pcie(Document& doc, const PcieLinkReport& p) {
  if (p.busy_s <= 0) return;
  if (p.degraded_busy_s <= 0) {
    doc.line(fmt::format("PCIe link: gen {} x{} whenever busy", p.max_gen, p.max_width));
    return;
  }
  doc.line(fmt::format("PCIe link: DEGRADED for {} of busy time, down to gen {} x{} (capable of gen {} x{})",
                       seconds_and_percent(p.degraded_busy_s, p.busy_s), p.worst_busy_gen, p.worst_busy_width,
                       p.max_gen, p.max_width));
}

void add_device(Document& doc, const DeviceReport& d, std::int64_t start_mono_ns) {
  doc.heading(fmt::format("GPU {}  {}  ({} samples)", d.info.index, d.info.name, d.samples));
  if (d.lost_at_wall_ns) doc.line(fmt::format("LOST at {}", iso_local(*d.lost_at_wall_ns).substr(0, 23)));
  if (d.metrics.empty()) {
    doc.line("no samples");
    return;
  }
  add_statistics(doc, d);
  add_energy(doc, d.energy);
  if (d.idle_gaps) add_idle_gaps(doc, *d.idle_gaps);
  if (d.throttle) add_throttle(doc, *d.throttle);
  if (d.memory) add_memory(doc, *d.memory, start_mono_ns);
  if (d.pcie_link) add_pcie(doc, *d.pcie_link);
}

// Metrics whose per-GPU values add up to something meaningful for the machine.
bool additive(DeviceMetric m) {
  return m == DeviceMetric::MemUsedBytes || m == DeviceMetric::PowerWatts || m == DeviceMetric::PcieTxBytesPerSec ||
         m == DeviceMetric::PcieRxBytesPerSec || m == DeviceMetric::NvlinkTxBytesPerSec ||
         m == DeviceMetric::NvlinkRxBytesPerSec;
}

void add_all_gpus(Document& doc, const RunReport& r) {
  if (r.all_gpus.empty()) return;
  doc.heading(fmt::format("{} {} GPUs together", r.job_gpus.known() ? "The job's" : "All", r.all_gpus.front().pooled.gpus));
  TextTable t;
  t.header = {"metric", "mean", "min", "max", "std", "sum of GPU means"};
  for (const PooledMetric& p : r.all_gpus) {
    if (!in_rows(p.metric)) continue;
    auto f = [&](double v) { return display_value(info(p.metric).display, v); };
    t.rows.push_back({column_title(info(p.metric)), f(p.pooled.mean), f(p.pooled.min), f(p.pooled.max), f(p.pooled.std),
                      additive(p.metric) ? f(p.pooled.sum_of_means) : std::string("-")});
  }
  doc.table(std::move(t));
  doc.line("percentiles need every GPU's samples side by side and are given per GPU only");
}

void add_balance(Document& doc, const RunReport& r) {
  if (r.balance.empty()) return;
  doc.heading(fmt::format("Load balance across {} GPUs (coefficient of variation of per-GPU means)",
                          r.balance.front().per_gpu_mean.size()));
  TextTable t;
  t.header = {"metric", "CV %", "quality", "note"};
  t.first_numeric_column = 1;
  for (const BalanceReport& b : r.balance) {
    if (!in_rows(b.metric)) continue;  // the JSON report has every metric
    std::string note;
    if (b.balance.band != BalanceBand::Excellent && b.balance.straggler) {
      const std::size_t s = *b.balance.straggler;
      note = fmt::format("furthest from the mean: GPU {} ({})", b.device_indices[s],
                         short_value(b.metric, b.per_gpu_mean[s]));
    } else if (b.balance.band != BalanceBand::Excellent && b.per_gpu_mean.size() == 2) {
      note = fmt::format("GPU {} {} vs GPU {} {}", b.device_indices[0], short_value(b.metric, b.per_gpu_mean[0]),
                         b.device_indices[1], short_value(b.metric, b.per_gpu_mean[1]));
    }
    t.rows.push_back({metric_label(b.metric), fmt::format("{:.1f}", b.balance.cv_percent),
                      std::string(to_string(b.balance.band)), note});
  }
  doc.table(std::move(t));
}

// The loop's measured data wait and step time, when any row has them: per
// segment, on its first row (the other GPUs' rows share it).
bool any_step_timing(const std::vector<SegmentStats>& segments) {
  return std::any_of(segments.begin(), segments.end(), [](const SegmentStats& s) { return s.step_timing.has_value(); });
}

std::vector<std::string> step_timing_cells(const SegmentStats& seg, bool first_row) {
  if (!first_row) return {"", ""};
  if (!seg.step_timing) return {"-", "-"};
  return {data_wait_cell(*seg.step_timing), step_time_cell(*seg.step_timing)};
}

void add_segments(Document& doc, const std::vector<SegmentStats>& segments, std::string_view title) {
  if (segments.empty()) return;
  doc.heading(std::string(title));
  TextTable t;
  t.header = {std::string(segments.front().kind == SegmentKind::Phase ? "phase" : "epoch"), "gpu", "times",
              "duration"};
  for (const SegmentColumn& c : kSegmentColumns) t.header.push_back(column_title(info(c.metric), "mean"));
  const bool timing = any_step_timing(segments);
  if (timing) {
    t.header.push_back(data_wait_column());
    t.header.push_back(step_time_column());
  }
  t.first_numeric_column = 1;
  const auto add_row = [&](std::vector<std::string> row, const SegmentStats& seg, bool first_row) {
    if (timing) {
      for (std::string& cell : step_timing_cells(seg, first_row)) row.push_back(std::move(cell));
    }
    t.rows.push_back(std::move(row));
  };
  const SegmentStats* merged = nullptr;
  for (const SegmentStats& seg : segments) {
    if (seg.merged_labels > 0) merged = &seg;
    if (seg.devices.empty()) {  // a host-only run: the durations still say something
      std::vector<std::string> row{seg.label, "-", std::to_string(seg.occurrences), human_duration(seg.duration_s)};
      row.resize(row.size() + std::size(kSegmentColumns), "-");
      add_row(std::move(row), seg, true);
    }
    for (const SegmentDeviceStats& d : seg.devices) {
      std::vector<std::string> row{seg.label, std::to_string(d.device_index), std::to_string(seg.occurrences),
                                   human_duration(seg.duration_s)};
      for (const SegmentColumn& c : kSegmentColumns) {
        const std::optional<Summary>& stats = d.*c.stats;
        row.push_back(stats ? display_value(info(c.metric).display, stats->mean) : std::string("-"));
      }
      add_row(std::move(row), seg, &d == &seg.devices.front());
    }
  }
  doc.table(std::move(t));
  if (merged) {
    doc.line(fmt::format("{} {} {} are taken together in one row.", merged->merged_labels,
                         merged->kind == SegmentKind::Phase ? "phases" : "epochs", merged->label));
  }
}

// The host's lines: each metric's label, its mean and max in the
// catalogue's display format; host memory also says of how much.
void add_host(Document& doc, const RunReport& r) {
  constexpr HostMetric kRows[] = {HostMetric::CpuPercent, HostMetric::MemUsedBytes, HostMetric::TreeCpuPercent,
                                  HostMetric::TreeRssBytes, HostMetric::TreeReadBytesPerSec};
  if (!r.find_host(HostMetric::CpuPercent) && !r.find_host(HostMetric::MemUsedBytes) &&
      !r.find_host(HostMetric::TreeCpuPercent)) {
    return;
  }
  doc.heading("Host");
  const Summary* total = r.find_host(HostMetric::MemTotalBytes);
  for (const HostMetric m : kRows) {
    const Summary* s = r.find_host(m);
    if (!s) continue;
    const DisplayFormat& f = info(m).display;
    std::string line = fmt::format("{:<22} mean {}, max {}", info(m).label, display_text(f, s->mean),
                                   display_text(f, s->max));
    if (m == HostMetric::MemUsedBytes && total) {
      line += " of " + display_text(info(HostMetric::MemTotalBytes).display, total->max);
    }
    doc.line(line);
  }
}

void add_processes_and_events(Document& doc, const RunReport& r, bool full) {
  if (!r.processes.empty()) {
    doc.heading("Processes on GPUs");
    TextTable t;
    // GPU use only where a driver gave it for some process (NVML, DRM fdinfo).
    const bool gpu_use = std::any_of(r.processes.begin(), r.processes.end(),
                                     [](const ProcessRecord& p) { return p.max_gpu_percent.has_value(); });
    // Whose each process is, where any process's owner is known.
    const bool owners = std::any_of(r.processes.begin(), r.processes.end(),
                                    [](const ProcessRecord& p) { return !p.attribution.empty(); });
    const MetricInfo& memory = info(ProcessMetric::UsedMemoryBytes);
    const MetricInfo& use = info(ProcessMetric::GpuPercent);
    t.header = {"name", "gpu", "pid", column_title(memory, "max")};
    if (owners) t.header.emplace_back("owner");
    if (gpu_use) {
      t.header.push_back(column_title(use, "mean"));
      t.header.push_back(column_title(use, "max"));
    }
    const auto shown = [](const MetricInfo& m, std::optional<double> v) {
      return v ? display_value(m.display, *v) : std::string("n/a");
    };
    for (const ProcessRecord& p : r.processes) {
      const auto bytes = p.max_used_memory_bytes;
      t.rows.push_back({shorten(p.name, kProcessNameColumns), std::to_string(p.device_index), std::to_string(p.pid),
                        shown(memory, bytes ? std::optional<double>(static_cast<double>(*bytes)) : std::nullopt)});
      if (owners) t.rows.back().push_back(p.attribution.empty() ? "-" : attribution_text(p.attribution));
      if (gpu_use) {
        t.rows.back().push_back(shown(use, p.mean_gpu_percent()));
        t.rows.back().push_back(shown(use, p.max_gpu_percent));
      }
    }
    doc.table(std::move(t));
  }
  add_events(doc, r, full);
}

// The verdict `status` and `record`'s summary give, when the caller judged
// the run: the same advisories, rendered alike.
void add_verdict(Document& doc, const RunReport& r) {
  if (!r.verdict) return;
  doc.heading("Verdict: " + *r.verdict);
  if (r.advisories.empty()) doc.line("No advisory: nothing to act on.");
  const std::string text = advisories_text(r.advisories);
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    doc.line(text.substr(begin, end - begin));
    begin = end + 1;
  }
}

Document report_document(const RunReport& r, bool full) {
  Document doc;
  const RunInfo& run = r.run;
  doc.title(fmt::format("Run {}  {}  [{}] {}", run.id, run.name.empty() ? "-" : run.name, to_string(run.status),
                          describe_outcome(run)));
  if (!run.command.empty()) {
    std::string cmd;
    for (const auto& a : run.command) cmd += (cmd.empty() ? "" : " ") + a;
    doc.line(fmt::format("Command   {}", cmd));
  } else if (run.attached_pid) {
    doc.line(fmt::format("Attached  pid {}", *run.attached_pid));
  }
  doc.line(fmt::format("Started   {}  on {}", iso_local(run.start_wall_ns).substr(0, 19), run.host));
  if (!run.job.empty()) doc.line(fmt::format("Job       {}", describe_job(run.job)));
  doc.line(fmt::format("Duration  {} (wall clock)   interval {} s", human_duration(r.wall_duration_s), run.interval_s));
  const JitterStats& j = run.jitter;
  if (j.ticks > 0) {
    doc.line(fmt::format("Sampler   {} ticks, lateness mean {:.3f} ms, p99 <= {:.3f} ms, max {:.3f} ms, {} missed",
                         j.ticks, j.mean_late_ns / 1e6, j.p99_late_ns / 1e6, j.max_late_ns / 1e6, j.missed_deadlines));
  }
  std::vector<int> recorded;
  for (const DeviceReport& d : r.devices) recorded.push_back(d.info.index);
  if (const std::string job = describe_job_gpus(r.job_gpus, run, recorded); !job.empty()) {
    doc.line(fmt::format("Job GPUs  {}", job));
  }
  add_verdict(doc, r);
  for (const DeviceReport& d : r.devices) add_device(doc, d, run.start_mono_ns);
  if (r.devices.empty()) {
    doc.heading("GPUs");
    doc.line("No GPU was recorded.");
  }
  add_all_gpus(doc, r);
  add_balance(doc, r);
  add_segments(doc, r.phases, "Phases (from annotations)");
  add_segments(doc, r.epochs, "Epochs (from annotations)");
  add_training(doc, r);
  if (r.total_energy_joules && r.devices.size() > 1) {
    doc.heading("Energy, all GPUs");
    doc.line(fmt::format("{:.1f} J ({:.4f} Wh)", *r.total_energy_joules, *r.total_energy_joules / 3600));
  }
  add_host(doc, r);
  add_processes_and_events(doc, r, full);
  return doc;
}

}  // namespace

std::string describe_outcome(const RunInfo& run) {
  if (run.status == RunStatus::Recording) return "still recording";
  std::string s;
  if (run.exit_signal) {
    const char* name = sigabbrev_np(*run.exit_signal);
    s = fmt::format("killed by signal {}{}", *run.exit_signal, name ? fmt::format(" (SIG{})", name) : "");
  } else if (run.exit_code) {
    s = fmt::format("exit {}", *run.exit_code);
  } else {
    s = run.end_reason.empty() ? std::string("ended") : run.end_reason;
  }
  if (run.end_reason == "underuse") s = "stopped: underuse";  // by --on-underuse kill, with SIGTERM
  if (run.end_reason == "hung") s = "stopped: hung";  // by --on-hang kill, with SIGTERM
  if (run.status == RunStatus::Interrupted) s = "interrupted: the recorder stopped without finishing the run";
  return s;
}

std::string describe_job_gpus(const JobGpus& job, const RunInfo& run, const std::vector<int>& recorded) {
  const auto list = [](const std::vector<int>& gpus) {
    std::string out;
    for (int g : gpus) out += (out.empty() ? "" : ", ") + std::to_string(g);
    return out;
  };
  std::string s;
  switch (job.source) {
    case JobGpuSource::Unknown: return {};
    case JobGpuSource::VisibleDevices:
      s = job.gpus.empty() ? fmt::format("none ({} shows the command no GPU)", fmt::join(job.variables, ", "))
                           : fmt::format("{} ({})", list(job.gpus), fmt::join(job.variables, ", "));
      break;
    case JobGpuSource::ProcessTree: s = list(job.gpus) + " (where the command's processes ran)"; break;
    case JobGpuSource::CommandNotSeen:
      if (recorded.empty()) return {};
      return fmt::format("all recorded ({})", run.command.empty() && !run.attached_pid
                                                  ? "no command to follow"
                                                  : "the command was not seen on any GPU");
  }
  std::vector<int> others;
  for (int g : recorded) {
    if (!job.contains(g)) others.push_back(g);
  }
  if (!others.empty()) s += "; also recorded, not judged: " + list(others);
  return s;
}

std::string render_report_text(const RunReport& report, bool full) { return report_document(report, full).to_text(); }
std::string render_report_markdown(const RunReport& report, bool full) {
  return report_document(report, full).to_markdown();
}

std::string render_report(const RunReport& report, OutputFormat format, bool full) {
  switch (format) {
    case OutputFormat::json: return render_report_json(report);
    case OutputFormat::markdown: return render_report_markdown(report, full);
    default: return render_report_text(report, full);
  }
}

}  // namespace gpuwatch
