#include <cmath>
#include <csignal>
#include <cstring>

#include <fmt/format.h>

#include "render/report.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

struct Row {
  std::string_view label;
  DeviceMetric metric;
  double divisor;
  int decimals;
};

// The metrics people read first; the JSON report has all of them.
constexpr Row kDeviceRows[] = {
    {"utilization %", DeviceMetric::GpuUtilPercent, 1, 1},
    {"memory util %", DeviceMetric::MemUtilPercent, 1, 1},
    {"memory used GiB", DeviceMetric::MemUsedBytes, kGiB, 2},
    {"power W", DeviceMetric::PowerWatts, 1, 1},
    {"temperature °C", DeviceMetric::TempGpuCelsius, 1, 1},
    {"memory temp °C", DeviceMetric::TempMemCelsius, 1, 1},
    {"SM clock MHz", DeviceMetric::SmClockMhz, 1, 0},
    {"memory clock MHz", DeviceMetric::MemClockMhz, 1, 0},
    {"fan %", DeviceMetric::FanPercent, 1, 0},
    {"PCIe TX MB/s", DeviceMetric::PcieTxBytesPerSec, 1e6, 1},
    {"PCIe RX MB/s", DeviceMetric::PcieRxBytesPerSec, 1e6, 1},
};

void append_summary_row(std::string& out, std::string_view label, const Summary& s, double divisor, int decimals) {
  auto f = [&](double v) { return fmt::format("{:.{}f}", v / divisor, decimals); };
  out += fmt::format("  {:<18} {:>10} {:>10} {:>10} {:>10} {:>10}\n", label, f(s.mean), f(s.min), f(s.max),
                     f(s.p95), f(s.std));
}

void append_energy(std::string& out, const EnergyEstimate& e) {
  if (e.counter_joules) {
    out += fmt::format("  energy             {:.1f} J ({:.4f} Wh) from the driver's energy counter", *e.counter_joules,
                       *e.counter_joules / 3600);
    if (e.integrated_counter_span_joules && *e.counter_joules > 0) {
      const double diff = (*e.integrated_counter_span_joules - *e.counter_joules) / *e.counter_joules * 100;
      out += fmt::format("\n                     integrated power over the same span: {:.1f} J ({:+.1f} %)",
                         *e.integrated_counter_span_joules, diff);
    }
    out += "\n";
  } else if (e.integrated_joules) {
    out += fmt::format("  energy             {:.1f} J ({:.4f} Wh) by integrating power (no energy counter)\n",
                       *e.integrated_joules, *e.integrated_joules / 3600);
  }
}

std::string_view metric_label(DeviceMetric m) {
  switch (m) {
    case DeviceMetric::GpuUtilPercent: return "utilization";
    case DeviceMetric::MemUsedBytes: return "memory used";
    case DeviceMetric::PowerWatts: return "power";
    default: return info(m).name;
  }
}

// A per-GPU mean in the unit people read it in.
std::string short_value(DeviceMetric m, double v) {
  if (m == DeviceMetric::MemUsedBytes) return human_bytes(v);
  if (m == DeviceMetric::PowerWatts) return fmt::format("{:.0f} W", v);
  return fmt::format("{:.1f} %", v);
}

void append_host(std::string& out, const RunReport& r) {
  const Summary* cpu = r.find_host(HostMetric::CpuPercent);
  const Summary* used = r.find_host(HostMetric::MemUsedBytes);
  const Summary* total = r.find_host(HostMetric::MemTotalBytes);
  const Summary* tree_cpu = r.find_host(HostMetric::TreeCpuPercent);
  const Summary* tree_rss = r.find_host(HostMetric::TreeRssBytes);
  if (!cpu && !used && !tree_cpu) return;
  out += "\nHost\n";
  if (cpu) out += fmt::format("  CPU (all cores)    mean {:.1f} %, max {:.1f} %\n", cpu->mean, cpu->max);
  if (used) {
    out += fmt::format("  RAM used           mean {}, max {}", human_bytes(used->mean), human_bytes(used->max));
    if (total) out += fmt::format(" of {}", human_bytes(total->max));
    out += "\n";
  }
  if (tree_cpu) {
    out += fmt::format("  command CPU        mean {:.1f} %, max {:.1f} % of one core\n", tree_cpu->mean,
                       tree_cpu->max);
  }
  if (tree_rss) {
    out += fmt::format("  command RSS        mean {}, max {}\n", human_bytes(tree_rss->mean), human_bytes(tree_rss->max));
  }
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
  if (run.status == RunStatus::Interrupted) s = "interrupted: the recorder stopped without finishing the run";
  return s;
}

std::string render_report_text(const RunReport& r) {
  std::string out;
  const RunInfo& run = r.run;
  out += fmt::format("Run {}  {}  [{}] {}\n", run.id, run.name.empty() ? "-" : run.name, to_string(run.status),
                     describe_outcome(run));
  if (!run.command.empty()) {
    std::string cmd;
    for (const auto& a : run.command) cmd += (cmd.empty() ? "" : " ") + a;
    out += fmt::format("Command   {}\n", cmd);
  } else if (run.attached_pid) {
    out += fmt::format("Attached  pid {}\n", *run.attached_pid);
  }
  out += fmt::format("Started   {}  on {}\n", iso_local(run.start_wall_ns).substr(0, 19), run.host);
  out += fmt::format("Duration  {} (wall clock)   interval {} s\n", human_duration(r.wall_duration_s),
                     run.interval_s);
  const JitterStats& j = run.jitter;
  if (j.ticks > 0) {
    out += fmt::format("Sampler   {} ticks, lateness mean {:.3f} ms, p99 <= {:.3f} ms, max {:.3f} ms, {} missed\n",
                       j.ticks, j.mean_late_ns / 1e6, j.p99_late_ns / 1e6, j.max_late_ns / 1e6, j.missed_deadlines);
  }

  for (const DeviceReport& d : r.devices) {
    out += fmt::format("\nGPU {}  {}  ({} samples)\n", d.info.index, d.info.name, d.samples);
    if (d.lost_at_wall_ns) out += fmt::format("  LOST at {}\n", iso_local(*d.lost_at_wall_ns).substr(0, 23));
    if (d.metrics.empty()) {
      out += "  no samples\n";
      continue;
    }
    out += fmt::format("  {:<18} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "metric", "mean", "min", "max", "p95", "std");
    for (const Row& row : kDeviceRows) {
      if (const Summary* s = d.find(row.metric)) append_summary_row(out, row.label, *s, row.divisor, row.decimals);
    }
    append_energy(out, d.energy);
  }
  if (r.devices.empty()) out += "\nNo GPU was recorded.\n";

  if (!r.balance.empty()) {
    out += fmt::format("\nLoad balance across {} GPUs (coefficient of variation of per-GPU means)\n",
                       r.balance.front().per_gpu_mean.size());
    for (const BalanceReport& b : r.balance) {
      out += fmt::format("  {:<18} CV {:5.1f} %  {:<9}", metric_label(b.metric), b.balance.cv_percent,
                         to_string(b.balance.band));
      if (b.balance.band != BalanceBand::Excellent && b.balance.straggler) {
        out += fmt::format("  furthest from the mean: GPU {}", b.device_indices[*b.balance.straggler]);
      } else if (b.balance.band != BalanceBand::Excellent && b.per_gpu_mean.size() == 2) {
        out += fmt::format("  GPU {} {} vs GPU {} {}", b.device_indices[0], short_value(b.metric, b.per_gpu_mean[0]),
                           b.device_indices[1], short_value(b.metric, b.per_gpu_mean[1]));
      }
      out += "\n";
    }
  }
  if (r.total_energy_joules && r.devices.size() > 1) {
    out += fmt::format("\nEnergy, all GPUs: {:.1f} J ({:.4f} Wh)\n", *r.total_energy_joules,
                       *r.total_energy_joules / 3600);
  }
  append_host(out, r);

  if (!r.processes.empty()) {
    out += "\nProcesses on GPUs\n";
    out += fmt::format("  {:>4} {:>8}  {:<24} {:>12}\n", "gpu", "pid", "name", "max mem MiB");
    for (const ProcessRecord& p : r.processes) {
      out += fmt::format("  {:>4} {:>8}  {:<24} {:>12}\n", p.device_index, p.pid, p.name.substr(0, 24),
                         p.max_used_memory_bytes
                             ? fmt::format("{:.0f}", static_cast<double>(*p.max_used_memory_bytes) / kMiB)
                             : std::string("n/a"));
    }
  }
  if (!r.events.empty()) {
    out += "\nEvents\n";
    for (const Event& e : r.events) {
      out += fmt::format("  {}  {:<12} {}{}\n", iso_local(e.time.wall_ns).substr(11, 12), e.kind,
                         e.device_index ? fmt::format("GPU {}: ", *e.device_index) : "", e.message);
    }
  }
  return out;
}

}  // namespace gpuwatch
