#include "render/compare_format.h"
#include "base/json_writer.h"
#include "render/run_group.h"

namespace gpuwatch {

namespace {

void write_run_ref(JsonWriter& w, const GroupRow& row, GroupColumn c) {
  w.begin_object();
  w.field("id", row.run.id);
  w.field("name", row.run.name);
  w.field("value", row.values[static_cast<std::size_t>(c)]);
  w.end_object();
}

void write_extremes(JsonWriter& w, const RunGroup& g) {
  w.key("extremes").begin_array();
  for (const GroupExtremes& e : g.extremes) {
    const Better better = info(e.column).better;
    const GroupRow& lowest = g.rows[e.lowest];
    const GroupRow& highest = g.rows[e.highest];
    const GroupRow* best = better == Better::Lower ? &lowest : (better == Better::Higher ? &highest : nullptr);
    const GroupRow* worst = better == Better::Lower ? &highest : (better == Better::Higher ? &lowest : nullptr);
    w.begin_object();
    w.field("column", info(e.column).name);
    w.field("better", to_string(better));
    w.key("lowest");
    write_run_ref(w, lowest, e.column);
    w.key("highest");
    write_run_ref(w, highest, e.column);
    w.field("best", best ? std::optional(best->run.id) : std::nullopt);
    w.field("worst", worst ? std::optional(worst->run.id) : std::nullopt);
    w.end_object();
  }
  w.end_array();
}

void write_repeats(JsonWriter& w, const RunGroup& g) {
  w.key("repeats").begin_array();
  for (const Configuration& config : g.repeats) {
    w.begin_object();
    w.field("name", config.name);
    w.field("runs", static_cast<std::uint64_t>(config.rows.size()));
    w.key("run_ids").begin_array();
    for (std::size_t r : config.rows) w.value(g.rows[r].run.id);
    w.end_array();
    for (std::size_t c = 0; c < kGroupColumnCount; ++c) {
      w.key(info(static_cast<GroupColumn>(c)).name);
      const auto& s = config.values[c];
      if (!s) {
        w.null();
        continue;
      }
      w.begin_object();
      w.field("n", static_cast<std::uint64_t>(s->n));
      w.field("mean", s->mean);
      w.field("std", s->std);
      w.field("min", s->min);
      w.field("max", s->max);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string render_run_group_json(const RunGroup& g) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kRunGroupSchemaVersion);
  w.field("kind", "run_group");
  w.field("selection", g.selection);
  w.key("columns").begin_array();
  for (std::size_t c = 0; c < kGroupColumnCount; ++c) {
    const GroupColumnInfo& i = info(static_cast<GroupColumn>(c));
    w.begin_object().field("name", i.name).field("unit", i.unit).field("better", to_string(i.better)).end_object();
  }
  w.end_array();
  w.key("runs").begin_array();
  for (const GroupRow& row : g.rows) {
    w.begin_object();
    compare_format::write_run_fields(w, row.run);
    w.field("outcome", compare_format::short_outcome(row.run));
    for (std::size_t c = 0; c < kGroupColumnCount; ++c) {
      w.field(info(static_cast<GroupColumn>(c)).name, row.values[c]);
    }
    w.end_object();
  }
  w.end_array();
  // Runs that did not complete: in no row, extreme or average.
  w.field("left_out_count", static_cast<std::uint64_t>(g.left_out.size()));
  w.key("left_out").begin_array();
  for (const RunInfo& run : g.left_out) {
    w.begin_object();
    compare_format::write_run_fields(w, run);
    w.field("outcome", compare_format::short_outcome(run));
    w.end_object();
  }
  w.end_array();
  write_extremes(w, g);
  write_repeats(w, g);
  w.end_object();
  out.push_back('\n');
  return out;
}

}  // namespace gpuwatch
