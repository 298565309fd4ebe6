// A consolidated summary over many runs (seed 001's "consolidated summary",
// done honestly): one row per run that ran to its end, every such run shown;
// the lowest and highest run for each column named; repeats of one
// configuration (runs that share a name) averaged with their spread, never
// replaced by their best member. Runs that did not run to their end (a
// matrix interrupted and resumed leaves killed cells beside good repeats)
// are named apart and counted, never averaged in.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/run_series.h"
#include "core/derived_metrics.h"
#include "core/run.h"

namespace gpuwatch {

enum class GroupColumn : std::uint8_t {
  DurationS,       // wall clock, start to end
  GpuUtilPercent,  // time-weighted mean of the mean over GPUs
  MemUsedMean,     // time-weighted mean of the sum over GPUs, bytes
  MemUsedPeak,     // highest sum over GPUs, bytes
  PowerWatts,      // time-weighted mean of the sum over GPUs
  EnergyJoules,    // all GPUs, from the energy counters or integrated power
  kCount
};
inline constexpr std::size_t kGroupColumnCount = static_cast<std::size_t>(GroupColumn::kCount);

// A column is a derived metric of the catalogue (core/derived_metrics.h):
// its name (the JSON key), unit, label and display come from there.
struct GroupColumnInfo {
  DerivedMetric metric;
  std::string_view name;  // JSON key
  std::string_view unit;
  Better better;
};
const GroupColumnInfo& info(GroupColumn c);

using GroupValues = std::array<std::optional<double>, kGroupColumnCount>;

struct GroupRow {
  RunInfo run;
  GroupValues values;
};

// Rows (indices into RunGroup::rows) with the lowest and highest value of a
// column; the first in row order on a tie.
struct GroupExtremes {
  GroupColumn column;
  std::size_t lowest = 0;
  std::size_t highest = 0;
};

struct Spread {
  std::size_t n = 0;  // runs with a value
  double mean = 0;
  double std = 0;     // sample standard deviation (n − 1); 0 when n = 1
  double min = 0;
  double max = 0;
};

// Mean, sample std, min and max of `xs` (not empty): how repeats are averaged.
Spread spread_of(std::span<const double> xs);

// Runs that share a name: repeats of one configuration.
struct Configuration {
  std::string name;
  std::vector<std::size_t> rows;  // indices into RunGroup::rows
  std::array<std::optional<Spread>, kGroupColumnCount> values;
};

// Whether a run ran to its end: its recorder finished it (it is not
// interrupted or still recording) and its command, if any, exited 0 (was not
// killed by a signal, did not fail, was not stopped by --on-underuse kill).
bool run_completed(const RunInfo& run);

struct RunGroup {
  std::string selection;               // what chose the runs, for the header
  std::vector<GroupRow> rows;          // every run that completed, oldest first
  std::vector<RunInfo> left_out;       // the runs that did not (run_completed), oldest first
  std::vector<GroupExtremes> extremes; // columns with values in two runs or more
  std::vector<Configuration> repeats;  // names with two runs or more, in row order
};

// One run's row. Callers with many long runs can load, reduce and drop them
// one at a time, then build the group from the rows.
GroupValues group_values(const RunData& data);
// The same where the run's report is at hand already.
struct RunReport;
GroupValues group_values(const RunData& data, const RunReport& report);
// Every row given is a row of the group (the matrix passes its cells' values).
RunGroup build_run_group(std::vector<GroupRow> rows, std::string selection);
// What `report --group` and `compare` show: the runs that did not complete
// (run_completed) go to left_out, the others are the rows. Their values are
// not read: a caller may leave them empty.
RunGroup build_completed_run_group(std::vector<GroupRow> rows, std::string selection);
RunGroup build_completed_run_group(std::span<const RunData> runs, std::string selection);

}  // namespace gpuwatch
