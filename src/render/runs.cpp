#include "render/runs.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "render/job.h"
#include "base/json_writer.h"
#include "core/derived_metrics.h"
#include "render/report.h"
#include "render/table.h"
#include "render/units.h"

namespace gpuwatch {

namespace {
std::optional<double> duration_s(const RunInfo& r) {
  if (!r.end_wall_ns) return std::nullopt;
  return static_cast<double>(*r.end_wall_ns - r.start_wall_ns) / 1e9;
}
}  // namespace

std::string render_runs_text(const std::vector<RunInfo>& runs) {
  if (runs.empty()) return "No runs stored yet. Start one with: gpuwatch record -- CMD\n";
  // Outcomes are cut at 20 columns; names, last, are never cut.
  // Host, job and rank only where some run belongs to a job or the runs
  // come from several hosts: then which node recorded each run is what
  // tells them apart.
  const bool jobs = std::any_of(runs.begin(), runs.end(), [&runs](const RunInfo& r) {
    return !r.job.id.empty() || r.host != runs.front().host;
  });
  Table t;
  t.columns = {{"id"}, {"started"}, {std::string(info(DerivedMetric::DurationSeconds).short_label), true}, {"status"},
               {"outcome"}};
  if (jobs) t.columns.insert(t.columns.end(), {{"host"}, {"job"}, {"rank", true}});
  t.columns.push_back({"name"});
  for (const RunInfo& r : runs) {
    const auto d = duration_s(r);
    std::vector<std::string> row{
        r.id, iso_local(r.start_wall_ns).substr(0, 19), d ? human_duration(*d) : "-", std::string(to_string(r.status)),
        r.status == RunStatus::Interrupted ? "-" : std::string(prefix_fitting(describe_outcome(r), 20))};
    if (jobs) {
      row.insert(row.end(), {r.host, r.job.id.empty() ? "-" : r.job.id,
                             r.job.rank ? fmt::format("{}", *r.job.rank) : "-"});
    }
    row.push_back(r.name);
    t.rows.push_back(std::move(row));
  }
  return render_text_table(t, std::numeric_limits<std::size_t>::max());
}

std::string render_runs_json(const std::vector<RunInfo>& runs) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kRunsJsonSchemaVersion);
  w.key("runs").begin_array();
  for (const RunInfo& r : runs) {
    w.begin_object();
    w.field("id", r.id);
    w.field("name", r.name);
    w.field("start", iso_utc_ms(r.start_wall_ns));
    w.field("duration_s", duration_s(r));
    w.field("status", to_string(r.status));
    w.field("exit_code", r.exit_code);
    w.field("exit_signal", r.exit_signal);
    w.field("host", r.host);
    write_job_field(w, r.job);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out.push_back('\n');
  return out;
}

std::string render_runs(const std::vector<RunInfo>& runs, OutputFormat format) {
  return format == OutputFormat::json ? render_runs_json(runs) : render_runs_text(runs);
}

}  // namespace gpuwatch
