#include "matrix/summary.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "base/json_writer.h"
#include "render/run_group_tables.h"
#include "render/units.h"

namespace gpuwatch::matrix {

namespace {

// Repeats reduced with run_group's own rule (mean, sample std, min, max), so
// that the matrix and `report --group` never disagree.
std::array<std::optional<Spread>, kGroupColumnCount> spread_of_runs(const std::vector<GroupValues>& runs,
                                                                     const std::string& config) {
  std::array<std::optional<Spread>, kGroupColumnCount> out;
  if (runs.size() == 1) {
    for (std::size_t c = 0; c < kGroupColumnCount; ++c) {
      if (const auto& v = runs[0][c]) out[c] = Spread{1, *v, 0, *v, *v};
    }
    return out;
  }
  if (runs.empty()) return out;
  std::vector<GroupRow> rows;
  for (const GroupValues& v : runs) {
    GroupRow row;
    row.run.name = config;  // one name: run_group sees them as repeats
    row.values = v;
    rows.push_back(std::move(row));
  }
  const RunGroup group = build_run_group(std::move(rows), config);
  if (!group.repeats.empty()) out = group.repeats.front().values;
  return out;
}

std::string describe(const CellResult& c) {
  if (!c.failure.empty()) return c.failure;
  if (c.exit_status) return fmt::format("exit status {}", *c.exit_status);
  return std::string(to_string(c.state));
}

// A column's spread over the repeats in the catalogue's display unit and
// format (core/derived_metrics.h), as `report --group` shows it.
std::string text_value(GroupColumn column, const std::optional<Spread>& s) {
  if (!s) return "-";
  const DisplayFormat& format = info(info(column).metric).display;
  const auto shown = [&format](double v) { return display_value(format, v); };
  if (s->n == 1) return shown(s->mean);
  return fmt::format("{} ±{} ({}-{})", shown(s->mean), shown(s->std), shown(s->min), shown(s->max));
}

// What the cells left behind: the processes the matrix ended, and those
// new on their GPUs that it could not prove were theirs.
std::string render_left_behind_text(const MatrixSummary& s) {
  std::string ended;
  std::string on_gpus;
  for (const CellResult* c : s.left_behind) {
    if (!c->leftovers.empty()) ended += fmt::format("  {}: {}\n", c->name, describe_leftovers(*c));
    if (!c->gpu_processes_after.empty()) on_gpus += fmt::format("  {}: {}\n", c->name, describe_gpu_processes_after(*c));
  }
  std::string out;
  if (!ended.empty()) out += "\nprocesses cells left running when they ended (the matrix ended them):\n" + ended;
  if (!on_gpus.empty()) {
    out += "\nnew processes on cells' GPUs after they ended, not provably theirs (left running):\n" + on_gpus;
  }
  return out;
}

}  // namespace

std::string describe_leftovers(const CellResult& cell) {
  std::string out;
  for (const LeftoverProcess& p : cell.leftovers) {
    const std::string how = p.found_by == "session" ? "its session" : "left its session, found by its environment";
    const std::string end = p.ended_by.empty() ? "still running: could not be ended" : p.ended_by;
    out += fmt::format("{}{} {} ({}, {})", out.empty() ? "" : ", ", p.pid, p.name, how, end);
  }
  return out;
}

std::string describe_gpu_processes_after(const CellResult& cell) {
  std::string out;
  for (const GpuProcessAfter& p : cell.gpu_processes_after) {
    out += fmt::format("{}GPU {}: {} {}", out.empty() ? "" : ", ", p.gpu, p.pid,
                       p.name.empty() ? "(not visible here)" : p.name);
  }
  return out;
}

MatrixSummary build_summary(const std::vector<CellResult>& cells, const std::map<std::string, GroupValues>& run_values) {
  MatrixSummary s;
  std::map<std::string, std::vector<GroupValues>> runs_by_config;
  for (const CellResult& c : cells) {
    auto it = std::find_if(s.configs.begin(), s.configs.end(), [&](const auto& k) { return k.config == c.config; });
    if (it == s.configs.end()) {
      s.configs.push_back({c.config, c.values, {}, 0, {}});
      it = std::prev(s.configs.end());
    }
    it->cells.push_back(&c);
    if (!c.leftovers.empty() || !c.gpu_processes_after.empty()) s.left_behind.push_back(&c);
    if (c.state != CellState::Done) {
      s.unsuccessful.push_back(&c);
      continue;
    }
    ++it->succeeded;
    if (const auto v = run_values.find(c.run_id); v != run_values.end()) runs_by_config[c.config].push_back(v->second);
  }
  for (ConfigSummary& k : s.configs) k.columns = spread_of_runs(runs_by_config[k.config], k.config);
  return s;
}

std::string render_summary_text(const MatrixSummary& s) {
  std::string out = "gpuwatch matrix summary: mean ±std (min-max) over a configuration's repeats that succeeded\n";
  out += "utilization averaged over the cell's GPUs; memory, power and energy summed over them; summary.json has\n"
         "the same in base units\n\n";
  for (const ConfigSummary& k : s.configs) {
    out += fmt::format("{}  ({} of {} succeeded)\n", k.config, k.succeeded, k.cells.size());
    for (const GroupColumn c : {GroupColumn::GpuUtilPercent, GroupColumn::MemUsedMean, GroupColumn::PowerWatts,
                                GroupColumn::EnergyJoules, GroupColumn::DurationS}) {
      out += fmt::format("  {:<22} {}\n", run_group_tables::column_label(c),
                         text_value(c, k.columns[static_cast<std::size_t>(c)]));
    }
  }
  if (s.unsuccessful.empty()) {
    out += "\nevery cell succeeded\n";
  } else {
    out += fmt::format("\n{} cell{} did not succeed:\n", s.unsuccessful.size(), s.unsuccessful.size() == 1 ? "" : "s");
    for (const CellResult* c : s.unsuccessful) {
      out += fmt::format("  {:<12} {}: {}\n", to_string(c->state), c->name, describe(*c));
    }
  }
  out += render_left_behind_text(s);
  return out;
}

std::string render_summary_json(const MatrixSummary& s) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kMatrixSchemaVersion);
  w.key("configs").begin_array();
  for (const ConfigSummary& k : s.configs) {
    w.begin_object().field("config", k.config);
    w.key("values").begin_object();
    for (const auto& [n, v] : k.values) w.field(n, v);
    w.end_object();
    w.field("cells", static_cast<std::uint64_t>(k.cells.size()));
    w.field("succeeded", static_cast<std::uint64_t>(k.succeeded));
    w.key("runs").begin_array();
    for (const CellResult* c : k.cells) {
      w.begin_object().field("cell", c->name).field("rep", c->rep).field("state", to_string(c->state));
      write_cell_run(w, *c);
      w.field("exit_status", c->exit_status).field("duration_s", c->duration_s).end_object();
    }
    w.end_array();
    w.key("metrics").begin_object();
    for (std::size_t c = 0; c < kGroupColumnCount; ++c) {
      w.key(info(static_cast<GroupColumn>(c)).name);
      const auto& sp = k.columns[c];
      if (!sp) {
        w.null();
        continue;
      }
      w.begin_object().field("n", static_cast<std::uint64_t>(sp->n)).field("mean", sp->mean).field("std", sp->std);
      w.field("min", sp->min).field("max", sp->max).end_object();
    }
    w.end_object();
    w.end_object();
  }
  w.end_array();
  w.key("unsuccessful").begin_array();
  for (const CellResult* c : s.unsuccessful) {
    w.begin_object().field("cell", c->name).field("state", to_string(c->state));
    w.field("exit_status", c->exit_status).field("reason", describe(*c)).end_object();
  }
  w.end_array();
  w.key("left_behind").begin_array();
  for (const CellResult* c : s.left_behind) {
    w.begin_object().field("cell", c->name);
    write_leftovers(w, *c);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace gpuwatch::matrix
