// Where a matrix stands: the live line on stderr while it runs and
// `gpuwatch matrix status DIR` afterwards come from the same counts, so they
// always say the same thing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "matrix/state.h"

namespace gpuwatch::matrix {

struct Progress {
  std::size_t total = 0;
  std::size_t done = 0;
  std::size_t failed = 0;
  std::size_t interrupted = 0;
  std::size_t timed_out = 0;
  std::size_t running = 0;
  std::size_t pending = 0;
  std::optional<double> eta_s;  // schedule.h: eta_seconds; nullopt until a cell has finished
};

// now_unix_s: the running cells' elapsed time counts from their start.
Progress compute_progress(const std::vector<CellResult>& cells, double now_unix_s, int parallel);

// "matrix: 3/6 done, 2 running, 1 left, 1 failed, 1 timed out, ETA 1m20s".
std::string render_progress_line(const Progress& p);
// The line, then one line per cell.
std::string render_status_text(const Progress& p, const std::vector<CellResult>& cells);
std::string render_status_json(const Progress& p, const std::vector<CellResult>& cells, const std::string& dir);

}  // namespace gpuwatch::matrix
