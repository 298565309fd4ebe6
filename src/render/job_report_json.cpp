#include "render/compare_format.h"
#include "render/job.h"
#include "render/job_report.h"
#include "base/json_writer.h"

namespace gpuwatch {

namespace {

// The catalogue's name of a derived number: its JSON key.
constexpr std::string_view key(DerivedMetric m) { return info(m).name; }

void write_group_values(JsonWriter& w, const GroupValues& values) {
  for (std::size_t c = 0; c < kGroupColumnCount; ++c) w.field(info(static_cast<GroupColumn>(c)).name, values[c]);
}

void write_run(JsonWriter& w, const JobRun& r) {
  w.begin_object();
  compare_format::write_run_fields(w, r.run);
  w.field("host", r.run.host);
  write_job_field(w, r.run.job);
  write_group_values(w, r.values);
  w.field("steps_per_s", r.steps_per_s);
  w.key("gpus").begin_array();
  for (const JobGpu& g : r.gpus) {
    w.begin_object();
    w.field("gpu", g.index).field("name", g.name);
    w.field(key(DerivedMetric::GpuUtilMeanPercent), g.util_mean);
    w.field(key(DerivedMetric::MemUsedPeakBytes), g.mem_used_peak);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

std::string render_job_report_json(const JobReport& j) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kJobReportSchemaVersion);
  w.field("kind", "job");
  w.field("job_id", j.job_id);
  w.field("span_s", j.span_s);
  w.field("gpus", static_cast<std::uint64_t>(j.gpus));
  w.field("energy_joules", j.energy_joules);
  w.key("runs").begin_array();
  for (const JobRun& r : j.runs) write_run(w, r);
  w.end_array();
  w.key("nodes").begin_array();
  for (const JobNode& n : j.nodes) {
    w.begin_object();
    w.field("host", n.host);
    w.key("run_ids").begin_array();
    for (std::size_t r : n.runs) w.value(j.runs[r].run.id);
    w.end_array();
    w.field("gpus", static_cast<std::uint64_t>(n.gpus));
    w.field(key(DerivedMetric::GpuUtilMeanPercent), n.util_mean);
    w.field(key(DerivedMetric::PowerMeanWatts), n.power_watts);
    w.field(key(DerivedMetric::EnergyJoules), n.energy_joules);
    w.field("steps_per_s", n.steps_per_s);
    w.end_object();
  }
  w.end_array();
  w.key("load_balance");
  if (j.node_balance) {
    w.begin_object();
    w.field("metric", key(DerivedMetric::GpuUtilMeanPercent));
    w.field("cv_percent", j.node_balance->cv_percent);
    w.field("band", to_string(j.node_balance->band));
    w.end_object();
  } else {
    w.null();
  }
  w.key("straggler").begin_object();
  w.field("host", j.straggler ? std::optional(j.nodes[j.straggler->node].host) : std::nullopt);
  w.field("rule", j.straggler ? std::optional(std::string(to_string(j.straggler->rule))) : std::nullopt);
  w.field("value", j.straggler ? std::optional(j.straggler->value) : std::nullopt);
  w.field("others_mean", j.straggler ? std::optional(j.straggler->others_mean) : std::nullopt);
  w.field("reason", j.straggler_reason);
  w.end_object();
  w.end_object();
  out.push_back('\n');
  return out;
}

}  // namespace gpuwatch
