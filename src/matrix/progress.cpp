#include "matrix/progress.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "matrix/schedule.h"
#include "base/json_writer.h"

namespace gpuwatch::matrix {

namespace {

std::string short_duration(double s) {
  if (s < 10) return fmt::format("{:.1f}s", std::max(0.0, s));
  const auto total = static_cast<long long>(std::llround(s));
  if (total < 60) return fmt::format("{}s", total);
  if (total < 3600) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}h{:02}m", total / 3600, (total % 3600) / 60);
}

}  // namespace

Progress compute_progress(const std::vector<CellResult>& cells, double now_unix_s, int parallel) {
  Progress p;
  p.total = cells.size();
  std::vector<double> finished;
  std::vector<double> running;
  for (const CellResult& c : cells) {
    switch (c.state) {
      case CellState::Done: ++p.done; break;
      case CellState::Failed: ++p.failed; break;
      case CellState::Interrupted: ++p.interrupted; break;
      case CellState::TimedOut: ++p.timed_out; break;
      case CellState::Running: ++p.running; break;
      case CellState::Pending: ++p.pending; break;
    }
    // Failed cells count too: a crash at start-up is quick, but it is what
    // happened, and the ETA says how long the rest takes at this pace.
    const bool ended = c.state == CellState::Done || c.state == CellState::Failed || c.state == CellState::TimedOut;
    if (ended && c.duration_s) finished.push_back(*c.duration_s);
    if (c.state == CellState::Running) running.push_back(now_unix_s - c.start_unix_s);
  }
  p.eta_s = eta_seconds(finished, running, p.pending, parallel);
  return p;
}

std::string render_progress_line(const Progress& p) {
  std::string line = fmt::format("matrix: {}/{} done, {} running, {} left", p.done, p.total, p.running, p.pending);
  if (p.failed > 0) line += fmt::format(", {} failed", p.failed);
  if (p.interrupted > 0) line += fmt::format(", {} interrupted", p.interrupted);
  if (p.timed_out > 0) line += fmt::format(", {} timed out", p.timed_out);
  if (p.eta_s && (p.running > 0 || p.pending > 0)) line += fmt::format(", ETA {}", short_duration(*p.eta_s));
  return line;
}

std::string render_status_text(const Progress& p, const std::vector<CellResult>& cells) {
  std::string out = render_progress_line(p) + "\n";
  for (const CellResult& c : cells) {
    std::string detail;
    if (c.duration_s) detail += fmt::format("  {}", short_duration(*c.duration_s));
    if (c.exit_status) detail += fmt::format("  exit {}", *c.exit_status);
    if (!c.gpus.empty()) {
      detail += "  GPU";
      for (std::size_t i = 0; i < c.gpus.size(); ++i) detail += fmt::format("{}{}", i == 0 ? " " : ",", c.gpus[i]);
    }
    if (!c.run_id.empty()) detail += "  run " + c.run_id;
    out += fmt::format("  {:<12} {}{}\n", to_string(c.state), c.name, detail);
  }
  return out;
}

std::string render_status_json(const Progress& p, const std::vector<CellResult>& cells, const std::string& dir) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kMatrixSchemaVersion);
  w.field("dir", dir);
  w.field("total", static_cast<std::uint64_t>(p.total));
  w.field("done", static_cast<std::uint64_t>(p.done));
  w.field("failed", static_cast<std::uint64_t>(p.failed));
  w.field("interrupted", static_cast<std::uint64_t>(p.interrupted));
  w.field("timed_out", static_cast<std::uint64_t>(p.timed_out));
  w.field("running", static_cast<std::uint64_t>(p.running));
  w.field("pending", static_cast<std::uint64_t>(p.pending));
  w.field("eta_s", p.eta_s);
  w.key("cells").begin_array();
  for (const CellResult& c : cells) {
    w.begin_object().field("name", c.name).field("state", to_string(c.state));
    write_cell_run(w, c);
    w.field("duration_s", c.duration_s).field("exit_status", c.exit_status).end_object();
  }
  w.end_array();
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace gpuwatch::matrix
