// DIR/summary.txt and DIR/summary.json: one row per configuration, its
// repeats averaged with their spread, and which cells failed and how. The
// per-run numbers are the ones `report --group` shows (analysis/run_group.h:
// group_values), computed by the caller from the stored runs; here they are
// only grouped and written.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_group.h"
#include "matrix/state.h"

namespace gpuwatch::matrix {

struct ConfigSummary {
  std::string config;
  std::vector<std::pair<std::string, std::string>> values;
  std::vector<const CellResult*> cells;  // its repeats, in order
  std::size_t succeeded = 0;
  // Over the cells that succeeded and whose run was found; the spread of
  // one run is that run alone (n = 1, std 0).
  std::array<std::optional<Spread>, kGroupColumnCount> columns;
};

struct MatrixSummary {
  std::vector<ConfigSummary> configs;         // grid order
  std::vector<const CellResult*> unsuccessful; // failed, interrupted, timed out, pending, running
  // Cells that left processes behind, or new processes on their GPUs.
  std::vector<const CellResult*> left_behind;
};

// One line for a person: "1234 sleep (its session, SIGTERM), 1240 sleep (left
// its session, found by its environment, SIGKILL)"; "" when there were none.
std::string describe_leftovers(const CellResult& cell);
// "GPU 0: 4321 python, GPU 1: 99 (not visible here)"; "" when none.
std::string describe_gpu_processes_after(const CellResult& cell);

// `cells` must outlive the summary. `run_values`: by run id.
MatrixSummary build_summary(const std::vector<CellResult>& cells, const std::map<std::string, GroupValues>& run_values);

std::string render_summary_text(const MatrixSummary& s);
std::string render_summary_json(const MatrixSummary& s);

}  // namespace gpuwatch::matrix
