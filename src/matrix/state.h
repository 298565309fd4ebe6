// What a matrix writes into its folder, as data, and its JSON both ways:
// DIR/matrix.json (the grid and how it runs: --resume reads it back) and
// DIR/<cell>/cell.json (one cell's outcome: `matrix status` and the
// summary read them back). No file I/O here; runner.cpp reads and writes.
#pragma once

#include <cstdint>
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
  // --cell-timeout: a cell running longer is stopped and marked timed_out.
  std::optional<double> cell_timeout_s;
  // --stop-grace: how long a stopped cell (timeout, Ctrl-C) or what a cell
  // left behind has after SIGTERM before SIGKILL.
  double stop_grace_s = 10.0;
};

// A cell's state: pending (never started, or its cell.json is missing),
// running (written when it starts: a matrix killed outright leaves it so),
// done (exit 0), failed (non-zero exit, or could not start), interrupted
// (stopped by SIGINT/SIGTERM to the matrix), timed_out (stopped by
// --cell-timeout).
enum class CellState { Pending, Running, Done, Failed, Interrupted, TimedOut };
std::string_view to_string(CellState s);

// A process the cell left running when its recorder ended, which the matrix
// ended (cell_processes.h says how they are found).
struct LeftoverProcess {
  std::uint32_t pid = 0;
  std::string name;      // its comm
  // "session": still in the cell's session (a background child, a daemon
  // that forked); "environment": it had left the session (setsid) but its
  // environment holds the cell's GPUWATCH_MATRIX_CELL_ID.
  std::string found_by;
  // "SIGTERM" or "SIGKILL", what ended it; "" when it was still there after
  // both (another user's, or stuck in the kernel).
  std::string ended_by;
};

// A process on one of the cell's GPUs after the cell ended that was not
// there when it started: perhaps the cell's (one that left both its session
// and its environment), perhaps another user's; never proven, so left
// running and only reported.
struct GpuProcessAfter {
  int gpu = 0;
  std::uint32_t pid = 0;
  std::string name;  // "" when this process cannot see it (another PID namespace)
};

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
  std::string failure;                // why, for failed, interrupted and timed-out cells
  std::vector<LeftoverProcess> leftovers;
  std::vector<GpuProcessAfter> gpu_processes_after;
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

// "leftover_processes": [{"pid", "name", "found_by", "ended_by"}] and
// "gpu_processes_after": [{"gpu", "pid", "name"}], as cell.json and
// summary.json write them.
void write_leftovers(JsonWriter& w, const CellResult& cell);

}  // namespace gpuwatch::matrix
