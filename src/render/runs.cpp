#include "render/runs.h"

#include <fmt/format.h>

#include "render/json_writer.h"
#include "render/report.h"
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
  std::string out = fmt::format("{:<12}  {:<19}  {:>10}  {:<11}  {:<20}  {}\n", "id", "started", "duration", "status",
                                "outcome", "name");
  for (const RunInfo& r : runs) {
    const auto d = duration_s(r);
    out += fmt::format("{:<12}  {:<19}  {:>10}  {:<11}  {:<20}  {}\n", r.id, iso_local(r.start_wall_ns).substr(0, 19),
                       d ? human_duration(*d) : "-", to_string(r.status),
                       r.status == RunStatus::Interrupted ? "-" : describe_outcome(r).substr(0, 20), r.name);
  }
  return out;
}

std::string render_runs_json(const std::vector<RunInfo>& runs) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_array();
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
    w.end_object();
  }
  w.end_array();
  out.push_back('\n');
  return out;
}

}  // namespace gpuwatch
