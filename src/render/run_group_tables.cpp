#include "render/run_group_tables.h"

#include <fmt/format.h>

#include "render/compare_format.h"
#include "render/units.h"

namespace gpuwatch::run_group_tables {

namespace {

// The catalogue's words for a column (core/derived_metrics.h): short_label
// heads a table's column, label names it in prose and the extremes table.
const MetricInfo& words(std::size_t c) { return info(info(static_cast<GroupColumn>(c)).metric); }

bool is_duration(std::size_t c) { return static_cast<GroupColumn>(c) == GroupColumn::DurationS; }

// Durations are shown as 1h02m03s in the runs table, in seconds elsewhere.
std::string header(std::size_t c) {
  return is_duration(c) ? std::string(words(c).short_label) : column_title(words(c));
}

std::string label(std::size_t c) { return column_title(words(c).label, words(c).display); }

std::string number(std::size_t c, double v) { return display_value(words(c).display, v); }

// Duration reads better as 1h02m03s in the per-run table.
std::string cell(std::size_t c, const std::optional<double>& v) {
  if (!v) return "n/a";
  if (is_duration(c)) return human_duration(*v);
  return number(c, *v);
}

std::string run_cell(const GroupRow& row, std::size_t c) {
  return fmt::format("{} {} ({})", number(c, *row.values[c]), row.run.name.empty() ? "-" : row.run.name, row.run.id);
}

}  // namespace

std::string column_header(GroupColumn c) { return header(static_cast<std::size_t>(c)); }

std::string column_label(GroupColumn c) { return label(static_cast<std::size_t>(c)); }

std::string column_cell(GroupColumn c, const std::optional<double>& v) { return cell(static_cast<std::size_t>(c), v); }

std::string heading(const RunGroup& g) {
  const auto runs = [](std::size_t n) { return fmt::format("{} run{}", n, n == 1 ? "" : "s"); };
  if (g.left_out.empty()) {
    return fmt::format("Summary of {} {}: every run is listed, repeats are averaged, none is left out",
                       runs(g.rows.size()), g.selection);
  }
  return fmt::format("Summary of {} {} that ran to their end: each is listed, repeats are averaged; {} that did "
                     "not finish {} left out (listed below)",
                     runs(g.rows.size()), g.selection, runs(g.left_out.size()),
                     g.left_out.size() == 1 ? "is" : "are");
}

namespace {

// Name, id and start: how every table of runs begins. Names are folded,
// never cut: a matrix's cells differ at the end ("lr=3e-4,seed=2").
void add_run_columns(Table& t) {
  t.columns.insert(t.columns.end(), {{"name", false, true, 12, true}, {"id"}, {"started"}});
}

std::vector<std::string> run_cells(const RunInfo& run) {
  // Month, day and time: the year is rarely what tells runs apart.
  return {run.name.empty() ? "-" : run.name, run.id, compare_format::start_time(run).substr(5, 11)};
}

}  // namespace

Table runs_table(const RunGroup& g) {
  Table t;
  t.gap = 1;  // ten columns: one space apart they fit 100
  add_run_columns(t);
  for (std::size_t c = 0; c < kGroupColumnCount; ++c) t.columns.push_back({header(c), true});
  t.columns.push_back({"outcome", false, true, 6, true});
  for (const GroupRow& row : g.rows) {
    std::vector<std::string> cells = run_cells(row.run);
    for (std::size_t c = 0; c < kGroupColumnCount; ++c) cells.push_back(cell(c, row.values[c]));
    cells.push_back(compare_format::short_outcome(row.run));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

Table left_out_table(const RunGroup& g) {
  Table t;
  add_run_columns(t);
  t.columns.push_back({"how it ended", false, true, 12, true});
  for (const RunInfo& run : g.left_out) {
    std::vector<std::string> cells = run_cells(run);
    cells.push_back(compare_format::short_outcome(run));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

std::string left_out_title(const RunGroup& g) {
  return fmt::format("Left out: {} run{} that did not finish (interrupted, killed, failed or still recording); not in "
                     "the rows, extremes or averages above",
                     g.left_out.size(), g.left_out.size() == 1 ? "" : "s");
}

Table extremes_table(const RunGroup& g) {
  Table t;
  t.columns = {{"column"}, {"better"}, {"lowest", false, true, 12, true}, {"highest", false, true, 12, true}};
  for (const GroupExtremes& e : g.extremes) {
    const auto c = static_cast<std::size_t>(e.column);
    t.rows.push_back({label(c), std::string(to_string(info(e.column).better)),
                      run_cell(g.rows[e.lowest], c), run_cell(g.rows[e.highest], c)});
  }
  return t;
}

Table repeats_table(const RunGroup& g) {
  Table t;
  t.columns = {{"configuration", false, true, 12, true}, {"column"}, {"n", true}, {"mean", true},
               {"std", true},                      {"min", true}, {"max", true}};
  for (const Configuration& config : g.repeats) {
    bool first = true;
    for (std::size_t c = 0; c < kGroupColumnCount; ++c) {
      const auto& s = config.values[c];
      if (!s) continue;
      t.rows.push_back({first ? fmt::format("{} ({} runs)", config.name, config.rows.size()) : "",
                        label(c), fmt::format("{}", s->n), number(c, s->mean), number(c, s->std),
                        number(c, s->min), number(c, s->max)});
      first = false;
    }
  }
  return t;
}

std::string legend(const RunGroup& g) {
  const auto word = [](DerivedMetric m) { return info(m).short_label; };
  std::string text = fmt::format(
      "{}: time-weighted mean of the mean over GPUs; {}: of the sum over GPUs, {} its highest value; {}: sum over "
      "GPUs; {}: all GPUs, from the energy counters where the driver has them.",
      word(DerivedMetric::GpuUtilMeanPercent), word(DerivedMetric::MemUsedMeanBytes),
      word(DerivedMetric::MemUsedPeakBytes), word(DerivedMetric::PowerMeanWatts), word(DerivedMetric::EnergyJoules));
  if (!g.repeats.empty()) {
    text += " Repeats are runs with the same name; std is the sample standard deviation across them.";
  }
  return text;
}

}  // namespace gpuwatch::run_group_tables
