// The tables of a group summary, shared by its text and markdown renderers.
#pragma once

#include <string>

#include "analysis/run_group.h"
#include "render/table.h"

namespace gpuwatch::run_group_tables {

// "12 runs named 'adamw*'": what the summary covers, and what it leaves out.
std::string heading(const RunGroup& g);
// One row per run, every run, oldest first.
Table runs_table(const RunGroup& g);
// The runs that did not complete, with how each ended, and its title.
Table left_out_table(const RunGroup& g);
std::string left_out_title(const RunGroup& g);
// Lowest and highest run per column, with which of them is better.
Table extremes_table(const RunGroup& g);
// Configurations run more than once: n, mean, std, min, max per column.
Table repeats_table(const RunGroup& g);
// What the columns mean, in a sentence or two.
std::string legend(const RunGroup& g);
// A column's header (short word and display unit) and a value in it as the
// runs table shows it: for other tables of group values (report --job).
std::string column_header(GroupColumn c);
// A column's label and display unit, for prose and lists: "GPU energy kJ".
std::string column_label(GroupColumn c);
std::string column_cell(GroupColumn c, const std::optional<double>& v);

}  // namespace gpuwatch::run_group_tables
