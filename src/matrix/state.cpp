#include "matrix/state.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <stdexcept>

#include <fmt/format.h>
#include <simdjson.h>

#include "base/json_writer.h"

namespace gpuwatch::matrix {

namespace {

namespace dom = simdjson::dom;

constexpr std::string_view kStateNames[] = {"pending", "running", "done", "failed", "interrupted", "timed_out"};

void write_values(JsonWriter& w, const std::vector<std::pair<std::string, std::string>>& values) {
  w.key("values").begin_object();
  for (const auto& [k, v] : values) w.field(k, v);
  w.end_object();
}

void write_strings(JsonWriter& w, std::string_view key, const std::vector<std::string>& items) {
  w.key(key).begin_array();
  for (const auto& s : items) w.value(s);
  w.end_array();
}

std::vector<std::string> read_strings(dom::object o, std::string_view key) {
  std::vector<std::string> out;
  dom::array a;
  if (o.at_key(key).get(a) != simdjson::SUCCESS) return out;
  for (dom::element e : a) {
    std::string_view s;
    if (e.get(s) == simdjson::SUCCESS) out.emplace_back(s);
  }
  return out;
}

std::string read_string(dom::object o, std::string_view key) {
  std::string_view s;
  return o.at_key(key).get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}

std::optional<double> read_number(dom::object o, std::string_view key) {
  double d = 0;
  if (o.at_key(key).get(d) == simdjson::SUCCESS) return d;
  std::int64_t i = 0;  // simdjson keeps integers apart from doubles
  if (o.at_key(key).get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  return std::nullopt;
}

std::optional<int> read_int(dom::object o, std::string_view key) {
  std::int64_t i = 0;
  if (o.at_key(key).get(i) != simdjson::SUCCESS) return std::nullopt;
  return static_cast<int>(i);
}

// {"name": "value", ...} in the file's order; values not strings left out.
Values read_pairs(dom::object o) {
  Values out;
  for (auto [k, v] : o) {
    std::string_view s;
    if (v.get(s) == simdjson::SUCCESS) out.emplace_back(std::string(k), std::string(s));
  }
  return out;
}

std::optional<dom::object> parse_object(dom::parser& parser, std::string_view text) {
  const simdjson::padded_string padded(text);
  dom::object o;
  if (parser.parse(padded).get(o) != simdjson::SUCCESS) return std::nullopt;
  return o;
}

void read_leftovers(dom::object o, CellResult& c) {
  dom::array a;
  if (o.at_key("leftover_processes").get(a) == simdjson::SUCCESS) {
    for (dom::element e : a) {
      dom::object p;
      if (e.get(p) != simdjson::SUCCESS) continue;
      c.leftovers.push_back({static_cast<std::uint32_t>(read_int(p, "pid").value_or(0)), read_string(p, "name"),
                             read_string(p, "found_by"), read_string(p, "ended_by")});
    }
  }
  if (o.at_key("gpu_processes_after").get(a) == simdjson::SUCCESS) {
    for (dom::element e : a) {
      dom::object p;
      if (e.get(p) != simdjson::SUCCESS) continue;
      c.gpu_processes_after.push_back({read_int(p, "gpu").value_or(0),
                                       static_cast<std::uint32_t>(read_int(p, "pid").value_or(0)), read_string(p, "name")});
    }
  }
}

}  // namespace

void write_leftovers(JsonWriter& w, const CellResult& cell) {
  w.key("leftover_processes").begin_array();
  for (const LeftoverProcess& p : cell.leftovers) {
    w.begin_object().field("pid", static_cast<std::uint64_t>(p.pid)).field("name", p.name);
    w.field("found_by", p.found_by).key("ended_by");
    if (p.ended_by.empty()) w.null(); else w.value(p.ended_by);
    w.end_object();
  }
  w.end_array();
  w.key("gpu_processes_after").begin_array();
  for (const GpuProcessAfter& p : cell.gpu_processes_after) {
    w.begin_object().field("gpu", p.gpu).field("pid", static_cast<std::uint64_t>(p.pid)).field("name", p.name);
    w.end_object();
  }
  w.end_array();
}

std::string_view to_string(CellState s) { return kStateNames[static_cast<int>(s)]; }

std::string utc_iso8601(double unix_s) {
  const auto t = static_cast<std::time_t>(std::floor(unix_s));
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec);
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void write_cell_run(JsonWriter& w, const CellResult& cell) {
  w.key("run_id");
  if (cell.run_id.empty()) {
    w.null();
  } else {
    w.value(cell.run_id);
  }
  w.key("gpus").begin_array();
  for (const int g : cell.gpus) w.value(g);
  w.end_array();
}

std::string render_matrix_json(const MatrixDef& def) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kMatrixSchemaVersion);
  w.field("created", def.created);
  w.key("params").begin_array();
  for (const Param& p : def.grid.params) {
    w.begin_object().field("name", p.name);
    write_strings(w, "values", p.values);
    w.end_object();
  }
  w.end_array();
  w.key("exclude").begin_array();
  for (const Values& ex : def.grid.excludes) {
    w.begin_object();
    for (const auto& [k, v] : ex) w.field(k, v);
    w.end_object();
  }
  w.end_array();
  w.field("repeat", def.grid.repeat);
  write_strings(w, "command", def.grid.command);
  w.field("parallel", def.parallel);
  w.field("gpus_per_cell", def.gpus_per_cell);
  w.field("interval_s", def.interval_s);
  w.field("store", def.store);
  w.field("cell_timeout_s", def.cell_timeout_s);
  w.field("stop_grace_s", def.stop_grace_s);
  w.end_object();
  out += '\n';
  return out;
}

MatrixDef parse_matrix_json(std::string_view text) {
  dom::parser parser;
  const auto o = parse_object(parser, text);
  if (!o) throw std::runtime_error("matrix.json is not a JSON object");
  const auto version = read_int(*o, "schema_version");
  if (!version || *version > kMatrixSchemaVersion) {
    throw std::runtime_error("matrix.json has no schema_version this gpuwatch reads");
  }
  MatrixDef def;
  def.created = read_string(*o, "created");
  dom::array params;
  if (o->at_key("params").get(params) != simdjson::SUCCESS) throw std::runtime_error("matrix.json has no params");
  for (dom::element e : params) {
    dom::object po;
    if (e.get(po) != simdjson::SUCCESS) throw std::runtime_error("matrix.json: a param is not an object");
    def.grid.params.push_back({read_string(po, "name"), read_strings(po, "values")});
  }
  dom::array excludes;
  if (o->at_key("exclude").get(excludes) == simdjson::SUCCESS) {
    for (dom::element e : excludes) {
      dom::object eo;
      if (e.get(eo) != simdjson::SUCCESS) throw std::runtime_error("matrix.json: an exclude is not an object");
      def.grid.excludes.push_back(read_pairs(eo));
    }
  }
  def.grid.repeat = read_int(*o, "repeat").value_or(1);
  def.grid.command = read_strings(*o, "command");
  def.parallel = read_int(*o, "parallel").value_or(1);
  def.gpus_per_cell = read_int(*o, "gpus_per_cell");
  def.interval_s = read_number(*o, "interval_s").value_or(0.5);
  def.store = read_string(*o, "store");
  def.cell_timeout_s = read_number(*o, "cell_timeout_s");
  def.stop_grace_s = read_number(*o, "stop_grace_s").value_or(def.stop_grace_s);
  return def;
}

std::string render_cell_json(const CellResult& cell) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kMatrixSchemaVersion);
  w.field("name", cell.name);
  w.field("config", cell.config);
  w.field("rep", cell.rep);
  write_values(w, cell.values);
  write_strings(w, "command", cell.command);
  w.field("state", to_string(cell.state));
  write_cell_run(w, cell);
  w.field("start", utc_iso8601(cell.start_unix_s));
  w.field("start_unix_s", cell.start_unix_s);
  w.key("end");
  if (cell.end_unix_s) w.value(utc_iso8601(*cell.end_unix_s)); else w.null();
  w.field("end_unix_s", cell.end_unix_s);
  w.field("duration_s", cell.duration_s);
  w.field("exit_status", cell.exit_status);
  w.field("failure", cell.failure);
  write_leftovers(w, cell);
  w.end_object();
  out += '\n';
  return out;
}

std::optional<CellResult> parse_cell_json(std::string_view text) {
  dom::parser parser;
  const auto o = parse_object(parser, text);
  if (!o || !read_int(*o, "schema_version")) return std::nullopt;
  CellResult c;
  c.name = read_string(*o, "name");
  c.config = read_string(*o, "config");
  c.rep = read_int(*o, "rep").value_or(1);
  dom::object values;
  if (o->at_key("values").get(values) == simdjson::SUCCESS) c.values = read_pairs(values);
  c.command = read_strings(*o, "command");
  const std::string state = read_string(*o, "state");
  for (std::size_t i = 0; i < std::size(kStateNames); ++i) {
    if (kStateNames[i] == state) c.state = static_cast<CellState>(i);
  }
  c.run_id = read_string(*o, "run_id");
  dom::array gpus;
  if (o->at_key("gpus").get(gpus) == simdjson::SUCCESS) {
    for (dom::element e : gpus) {
      std::int64_t g = 0;
      if (e.get(g) == simdjson::SUCCESS) c.gpus.push_back(static_cast<int>(g));
    }
  }
  c.start_unix_s = read_number(*o, "start_unix_s").value_or(0);
  c.end_unix_s = read_number(*o, "end_unix_s");
  c.duration_s = read_number(*o, "duration_s");
  c.exit_status = read_int(*o, "exit_status");
  c.failure = read_string(*o, "failure");
  read_leftovers(*o, c);
  return c;
}

}  // namespace gpuwatch::matrix
