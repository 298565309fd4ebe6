#include "render/advisories.h"
#include "render/attribution_json.h"
#include "render/job.h"
#include "base/json_writer.h"
#include "render/report.h"
#include "render/report_json_parts.h"
#include "render/report_training.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

std::optional<std::string> iso_or_none(std::optional<std::int64_t> wall_ns) {
  if (!wall_ns) return std::nullopt;
  return iso_utc_ms(*wall_ns);
}

void write_run(JsonWriter& w, const RunInfo& run, double wall_duration_s) {
  w.key("run").begin_object();
  w.field("id", run.id);
  w.field("name", run.name);
  w.key("command").begin_array();
  for (const auto& a : run.command) w.value(a);
  w.end_array();
  w.field("cwd", run.cwd);
  w.field("host", run.host);
  write_job_field(w, run.job);
  w.field("start", iso_utc_ms(run.start_wall_ns));
  w.field("end", iso_or_none(run.end_wall_ns));
  w.field("wall_duration_s", wall_duration_s);
  w.field("status", to_string(run.status));
  w.field("exit_code", run.exit_code);
  w.field("exit_signal", run.exit_signal);
  w.field("end_reason", run.end_reason);
  w.field("interval_s", run.interval_s);
  // null for runs recorded before it was stored, and imported ones.
  w.field("slow_interval_s", run.slow_interval_s > 0 ? std::optional<double>(run.slow_interval_s) : std::nullopt);
  w.field("gpuwatch_version", run.version);
  w.key("sampler").begin_object();
  w.field("ticks", run.jitter.ticks);
  w.field("missed_deadlines", run.jitter.missed_deadlines);
  w.field("mean_late_ms", run.jitter.mean_late_ns / 1e6);
  w.field("p99_late_ms", run.jitter.p99_late_ns / 1e6);
  w.field("max_late_ms", run.jitter.max_late_ns / 1e6);
  w.end_object();
  w.end_object();
}

void write_device(JsonWriter& w, const DeviceReport& d, const RunInfo& run) {
  w.begin_object();
  w.field("gpu", d.info.index);
  w.field("name", d.info.name);
  w.field("vendor", d.info.vendor);
  w.field("uuid", d.info.uuid);
  w.field("pci_bus_id", d.info.pci_bus_id);
  w.field("samples", static_cast<std::uint64_t>(d.samples));
  w.field("lost_at", iso_or_none(d.lost_at_wall_ns));
  w.key("metrics").begin_object();
  for (const MetricSummary& m : d.metrics) {
    w.key(info(m.metric).name);
    write_summary(w, m.summary);
  }
  w.end_object();
  w.key("energy").begin_object();
  w.field("joules", d.energy.best());
  w.field("wh", d.energy.best() ? std::optional<double>(*d.energy.best() / 3600) : std::nullopt);
  w.field("source", d.energy.counter_joules ? "counter" : (d.energy.integrated_joules ? "integrated" : "none"));
  w.field("counter_joules", d.energy.counter_joules);
  w.field("integrated_joules", d.energy.integrated_joules);
  w.field("integrated_counter_span_joules", d.energy.integrated_counter_span_joules);
  w.end_object();
  write_detectors(w, d, run);
  w.end_object();
}

}  // namespace

void write_summary(JsonWriter& w, const Summary& s) {
  w.begin_object();
  w.field("count", static_cast<std::uint64_t>(s.count));
  w.field("span_s", s.span_s);
  w.field("mean", s.mean);
  w.field("std", s.std);
  w.field("min", s.min);
  w.field("max", s.max);
  w.field("p50", s.p50);
  w.field("p95", s.p95);
  w.end_object();
}

void write_job_gpus_json(JsonWriter& w, const JobGpus& job) {
  w.key("job_gpus");
  if (!job.known()) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("source", to_string(job.source));
  w.key("gpus").begin_array();
  for (int g : job.gpus) w.value(g);
  w.end_array();
  if (job.source == JobGpuSource::VisibleDevices) {
    w.key("variables").begin_array();
    for (const std::string& v : job.variables) w.value(v);
    w.end_array();
  }
  w.end_object();
}

namespace {

void write_all_gpus(JsonWriter& w, const std::vector<PooledMetric>& all_gpus) {
  w.key("all_gpus").begin_object();
  for (const PooledMetric& p : all_gpus) {
    w.key(info(p.metric).name).begin_object();
    w.field("gpus", static_cast<std::uint64_t>(p.pooled.gpus));
    w.field("count", static_cast<std::uint64_t>(p.pooled.count));
    w.field("span_s", p.pooled.span_s);
    w.field("mean", p.pooled.mean);
    w.field("std", p.pooled.std);
    w.field("min", p.pooled.min);
    w.field("max", p.pooled.max);
    w.field("sum_of_means", p.pooled.sum_of_means);
    w.end_object();
  }
  w.end_object();
}

void write_load_balance(JsonWriter& w, const std::vector<BalanceReport>& balance) {
  w.key("load_balance").begin_array();
  for (const BalanceReport& b : balance) {
    w.begin_object();
    w.field("metric", info(b.metric).name);
    w.field("cv_percent", b.balance.cv_percent);
    w.field("quality", to_string(b.balance.band));
    w.field("straggler_gpu", b.balance.straggler ? std::optional<int>(b.device_indices[*b.balance.straggler])
                                                  : std::nullopt);
    w.key("per_gpu_mean").begin_array();
    for (double v : b.per_gpu_mean) w.value(v);
    w.end_array();
    w.end_object();
  }
  w.end_array();
}

void write_processes(JsonWriter& w, const std::vector<ProcessRecord>& processes) {
  w.key("processes").begin_array();
  for (const ProcessRecord& p : processes) {
    w.begin_object();
    w.field("gpu", p.device_index);
    w.field("pid", static_cast<std::uint64_t>(p.pid));
    w.field("name", p.name);
    w.field("max_used_memory_bytes", p.max_used_memory_bytes);
    w.field("mean_gpu_percent", p.mean_gpu_percent());
    w.field("max_gpu_percent", p.max_gpu_percent);
    w.field("first_seen", iso_utc_ms(p.first_seen_wall_ns));
    w.field("last_seen", iso_utc_ms(p.last_seen_wall_ns));
    write_attribution(w, p.attribution);
    w.end_object();
  }
  w.end_array();
}

void write_events(JsonWriter& w, const RunReport& r) {
  w.key("events").begin_array();
  for (const Event& e : r.events) {
    w.begin_object();
    w.field("time", iso_utc_ms(e.time.wall_ns));
    w.field("gpu", e.device_index);
    w.field("kind", e.kind);
    w.field("message", e.message);
    w.end_object();
  }
  w.end_array();
  w.key("events_omitted").begin_object();
  for (const auto& [kind, n] : r.events_omitted) w.field(kind, static_cast<std::uint64_t>(n));
  w.end_object();
}

}  // namespace

std::string render_report_json(const RunReport& r) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kReportSchemaVersion);
  write_run(w, r.run, r.wall_duration_s);
  // The verdict every surface gives (analysis/run_verdict.h); null when the
  // caller did not judge the run.
  w.field("verdict", r.verdict);
  w.key("advisories");
  if (r.verdict) {
    write_advisories_json(w, r.advisories);
  } else {
    w.null();
  }
  write_job_gpus_json(w, r.job_gpus);
  w.key("devices").begin_array();
  for (const DeviceReport& d : r.devices) write_device(w, d, r.run);
  w.end_array();
  write_all_gpus(w, r.all_gpus);
  write_load_balance(w, r.balance);
  write_segments(w, "phases", r.phases);
  write_segments(w, "epochs", r.epochs);
  write_training(w, r);
  w.field("total_energy_joules", r.total_energy_joules);
  w.key("host").begin_object();
  for (const HostMetricSummary& h : r.host) {
    w.key(info(h.metric).name);
    write_summary(w, h.summary);
  }
  w.end_object();
  write_processes(w, r.processes);
  write_events(w, r);
  w.end_object();
  out.push_back('\n');
  return out;
}

}  // namespace gpuwatch
