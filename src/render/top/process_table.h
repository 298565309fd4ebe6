// The process table of the top screen: every process that holds memory on a
// watched GPU, with what procfs says of it; or, grouped by owner (the `o`
// key, `--group-by owner`), one row per Slurm job, container, pod, unit or
// user with its processes' sums.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/process_owners.h"
#include "render/top/screen.h"
#include "render/top/top_view.h"

namespace gpuwatch {

// A header and at most `rows` rows, scrolled so that the selected row shows.
std::vector<ScreenLine> process_table(const TopView& view, std::size_t width, std::size_t rows);

// The view's processes grouped by owner (analysis/process_owners.h), sorted
// as `sort` says: largest sum first, absent sums last; by pid, by owner.
std::vector<OwnerGroup> owner_groups(const std::vector<TopProcess>& processes, ProcessSort sort);

// Sets view.processes to those of view.all_processes the view shows: on the
// focused GPU, matching the filter. Keeps the selection in range.
void show_processes(TopView& view);

// Whether `p` matches `filter` (its pid, user, owner or command contains it,
// case ignored; an empty filter matches all).
bool matches_filter(const TopProcess& p, std::string_view filter);

// Rows the table has in the view's mode: processes, or owners.
std::size_t table_rows(const TopView& view);

// An owner row's first cell: "1234", "3f4e1b2c5d6a", "pod:0a1b2c3d",
// "session-3.scope", "alice"; "–" for processes /proc does not show.
std::string owner_cell(const Owner& owner);

}  // namespace gpuwatch
