// What a matrix writes into its folder, as data, and its JSON both ways:
// DIR/matrix.json (the grid and how it runs: --resume reads it back) and
// DIR/<cell>/cell.json (one cell's outcome: `matrix status` and the
// summary read them back). No file I/O here; runner.cpp reads and writes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "matrix/grid.h"

namespace gpuwatch {
class JsonWriter;
}

namespace gpuwatch::matrix {

inline constexpr int kMatrixSchemaVersion = 1;

struct MatrixDef {
  GridSpec grid;
  int parallel = 1;
  std::optional<int> gpus_per_cell;  // as given; nullopt: the default rule
  double interval_s = 0.5;
  std::string store;                 // --store as given; "" = the default store
  std::string created;               // UTC, ISO 8601
};

// A cell's state: pending (never started, or its cell.json is missing),
// running (written when it starts: a matrix killed outright leaves it so),
// done (exit 0), failed (non-zero exit, or could not start), interrupted
// (stopped by SIGINT/SIGTERM to the matrix).
enum class CellState { Pending, Running, Done, Failed, Interrupted };
std::string_view to_string(CellState s);

struct CellResult {
  std::string name;
  std::string config;
  int rep = 1;
  std::vector<std::pair<std::string, std::string>> values;
  std::vector<std::string> command;
  CellState state = CellState::Pending;
  std::string run_id;                 // the stored run; empty when none was found
  std::vector<int> gpus;
  double start_unix_s = 0;
  std::optional<double> end_unix_s;
  std::optional<double> duration_s;
  std::optional<int> exit_status;     // the recorder's: the command's, 128+N for signal N
  std::string failure;                // why, for failed and interrupted cells
};

std::string render_matrix_json(const MatrixDef& def);
// Throws std::runtime_error naming what is missing or wrong.
MatrixDef parse_matrix_json(std::string_view text);

std::string render_cell_json(const CellResult& cell);
// nullopt when the text is not a cell.json (then the cell counts as pending).
std::optional<CellResult> parse_cell_json(std::string_view text);

// "2026-11-27T20:30:10Z".
std::string utc_iso8601(double unix_s);
// Now, in seconds since the epoch (the cells' start and end).
double unix_now();

// "run_id" (null when none) and "gpus", as every JSON file of a matrix
// writes a cell's run.
void write_cell_run(JsonWriter& w, const CellResult& cell);

}  // namespace gpuwatch::matrix
