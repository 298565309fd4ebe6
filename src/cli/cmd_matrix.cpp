// `gpuwatch matrix`: flags into a MatrixDef, then src/matrix/ runs it.
#include <chrono>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/format_option.h"
#include "cli/number_flags.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/time_flag.h"
#include "base/environment.h"
#include "base/system_paths.h"
#include "core/durations.h"
#include "matrix/files.h"
#include "matrix/grid.h"
#include "matrix/grid_file.h"
#include "matrix/runner.h"
#include "matrix/slurm.h"

namespace gpuwatch::cli {

namespace {

// matrix_results_20261127_203010 (UTC), as record's seed files name times.
std::string default_dir() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("matrix_results_{:04}{:02}{:02}_{:02}{:02}{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void add_matrix_status(CLI::App& matrix, int& exit_code) {
  auto* cmd = matrix.add_subcommand("status", "Where a matrix stands, from its folder: cells done, running, left, failed");
  struct Flags {
    std::string dir;
    OutputFormat format = OutputFormat::text;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("DIR", flags->dir, "The matrix's folder")->required();
  add_format_option(*cmd, flags->format, {OutputFormat::text, OutputFormat::json}, "text or json");
  cmd->callback([flags, &exit_code] {
    print_output(matrix::matrix_status(flags->dir, flags->format));
    exit_code = 0;
  });
}

// What the runner takes from gpuwatch's environment: where to read the
// system, the matrix's own visible-devices variables, and what the cells'
// recorders inherit.
matrix::RunnerOptions options_from_environment() {
  matrix::RunnerOptions o;
  o.paths = SystemPaths::from_environment();
  o.visibility = GpuVisibilityVariables::from_lookup(environment_value);
  o.environment = environment_entries();
  return o;
}

// `matrix run-cell DIR INDEX`, hidden: what each task of --slurm's job array runs.
void add_matrix_run_cell(CLI::App& matrix, int& exit_code) {
  auto* cmd = matrix.add_subcommand("run-cell", "Run one cell of the matrix in DIR (a task of --slurm's job array)");
  cmd->group("");  // hidden: slurm.sbatch calls it
  struct Flags {
    std::string dir;
    std::size_t index = 0;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("DIR", flags->dir, "The matrix's folder")->required();
  cmd->add_option("INDEX", flags->index, "The cell's index, 0-based (SLURM_ARRAY_TASK_ID)")
      ->required()
      ->check(whole_check("a cell index", 0, std::nullopt, "0"));
  cmd->callback([flags, &exit_code] {
    try {
      exit_code = matrix::run_cell(options_from_environment(), flags->dir, flags->index);
    } catch (const matrix::GridError& e) {
      throw CLI::ValidationError("matrix run-cell", e.what());
    }
  });
}

void add_matrix_collect(CLI::App& matrix, int& exit_code) {
  auto* cmd = matrix.add_subcommand(
      "collect",
      "Write DIR/summary.txt, summary.json and graphs/ from the cells' files and their runs in DIR/stores/*.db and the\n"
      "matrix's store (cells run elsewhere, e.g. by --slurm's job array). Exits 0 when every cell succeeded, else 1");
  struct Flags {
    std::string dir;
    std::string store;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("DIR", flags->dir, "The matrix's folder")->required();
  add_store_option(*cmd, flags->store);
  cmd->callback([flags, &exit_code] {
    const matrix::MatrixDef def = matrix::read_matrix_def(flags->dir);
    const std::string store = flags->store.empty() ? def.store : flags->store;
    exit_code = matrix::collect_matrix(flags->dir, matrix::collect_stores(flags->dir, store_path(store)));
  });
}

// What --slurm wrote and how to submit it: command lines to paste, their
// paths quoted for the shell (a folder may have blanks or a `#`).
std::string slurm_message(const matrix::SlurmScripts& written, const matrix::RunnerOptions& o) {
  const std::string collect =
      fmt::format("then, when the tasks are done:\n  gpuwatch matrix collect {}\n", matrix::shell_quote(o.dir.string()));
  if (written.scripts.size() == 1) {
    return fmt::format("wrote {} ({} cells, a task each); submit it with:\n  sbatch {}\n{}", written.scripts[0].string(),
                       written.cells, matrix::shell_quote(written.scripts[0].string()), collect);
  }
  std::string out = fmt::format(
      "the matrix has {} cells, more than one Slurm job array may hold ({} tasks: --slurm-max-array-size, Slurm's "
      "MaxArraySize): wrote {} job arrays of at most {} tasks, one script each; submit them all with:\n",
      matrix::group_thousands(written.cells), o.slurm_max_array_size, written.scripts.size(), o.slurm_max_array_size);
  for (const auto& script : written.scripts) out += fmt::format("  sbatch {}\n", matrix::shell_quote(script.string()));
  return out + collect;
}

// The flags of `matrix` itself, and the options whose presence counts.
struct MatrixFlags {
  std::vector<std::string> params;
  std::string grid;
  bool slurm = false;
  int repeat = 1;
  int parallel = 1;
  int gpus_per_cell = 0;
  std::string output_dir;
  std::string resume;
  double interval_s = 0.5;
  std::string store;
  std::string cell_timeout;
  std::string stop_grace;
  std::size_t slurm_max_array_size = matrix::kSlurmDefaultMaxArraySize;
  std::vector<std::string> command;
  struct Given {
    CLI::Option* param = nullptr;
    CLI::Option* grid = nullptr;
    CLI::Option* slurm = nullptr;
    CLI::Option* repeat = nullptr;
    CLI::Option* parallel = nullptr;
    CLI::Option* per_cell = nullptr;
    CLI::Option* interval = nullptr;
    CLI::Option* cell_timeout = nullptr;
    CLI::Option* stop_grace = nullptr;
  } given;
};

// --cell-timeout and --stop-grace (validated as durations by CLI11) into the
// definition, which matrix.json keeps for --resume and run-cell.
void apply_stop_flags(const MatrixFlags& f, matrix::MatrixDef& def) {
  const auto seconds = [](const std::string& text) {
    return static_cast<double>(*parse_duration_ns(text)) / static_cast<double>(kSecondNs);
  };
  if (f.given.cell_timeout->count() > 0) def.cell_timeout_s = seconds(f.cell_timeout);
  if (f.given.stop_grace->count() > 0) def.stop_grace_s = seconds(f.stop_grace);
}

// The flags in the order --help lists them: the grid and how it is shared out.
void add_matrix_grid_flags(CLI::App& cmd, MatrixFlags& f) {
  f.given.param = cmd.add_option("--param", f.params, "NAME=V1,V2,...: {NAME} in the command takes each value. Repeatable")
                      ->allow_extra_args(false);
  f.given.grid = cmd.add_option("--grid", f.grid,
                                "FILE.toml: the grid's params ([params] NAME = [V1, V2]) and [[exclude]] combinations;\n"
                                "with --param, the params of both");
  f.given.slurm = cmd.add_flag("--slurm", f.slurm,
                               "Run nothing: write DIR/matrix.json and DIR/slurm.sbatch, a Slurm job array with a task per cell\n"
                               "(sbatch DIR/slurm.sbatch; then matrix collect DIR)");
  f.given.repeat = cmd.add_option("--repeat", f.repeat, "Run each combination N times")
                       ->check(whole_check("repeats", 1, 100000, "3"));
  f.given.parallel = cmd.add_option("--parallel", f.parallel, "Cells at once")->check(whole_check("cells", 1, 4096, "2"));
  f.given.per_cell = cmd.add_option("--gpus-per-cell", f.gpus_per_cell,
                                    "GPUs each cell gets, held by it alone (default: all GPUs with --parallel 1, else\n"
                                    "an equal share)")
                         ->check(whole_check("GPUs", 1, 4096, "1"));
}

// Then where the results go, how each cell is recorded and stopped.
void add_matrix_run_flags(CLI::App& cmd, MatrixFlags& f) {
  cmd.add_option("--output-dir", f.output_dir, "The results folder (default: matrix_results_<UTC time>)");
  cmd.add_option("--resume", f.resume, "Go on with the matrix in DIR: run the cells missing, failed or interrupted");
  f.given.interval = cmd.add_option("--interval", f.interval_s, "Seconds between samples in each cell's recording")
                         ->check(seconds_check(0.01, 86400, "0.5"));
  f.given.cell_timeout =
      cmd.add_option("--cell-timeout", f.cell_timeout,
                     "Stop a cell that runs longer (90s, 15m, 2h): SIGTERM, SIGKILL after --stop-grace; the cell\n"
                     "is timed_out and the matrix goes on (and exits 1)")
          ->check(duration_validator());
  f.given.stop_grace = cmd.add_option("--stop-grace", f.stop_grace,
                                      "How long a stopped cell, and what a cell leaves running when it ends, has\n"
                                      "after SIGTERM before SIGKILL (default 10s)")
                           ->check(duration_validator());
  cmd.add_option("--slurm-max-array-size", f.slurm_max_array_size,
                 "With --slurm: the most tasks one job array may have, Slurm's MaxArraySize (scontrol show\n"
                 "config); more cells are split into several arrays")
      ->check(whole_check("tasks", 1, 4'000'000, "1001"))
      ->capture_default_str();
}

// --resume DIR: the grid is the folder's; a few flags may change how it runs.
matrix::RunnerOptions resumed_matrix(const MatrixFlags& f) {
  // The grid is the folder's: a new one here would be a second matrix.
  for (const CLI::Option* opt : {f.given.param, f.given.grid, f.given.repeat, f.given.per_cell, f.given.slurm}) {
    if (opt->count() > 0) throw CLI::ValidationError(opt->get_name(), "goes with a new matrix, not --resume");
  }
  if (!f.command.empty()) throw CLI::ValidationError("--resume", "takes the command from DIR/matrix.json");
  if (!f.output_dir.empty()) throw CLI::ValidationError("--output-dir", "give either --output-dir or --resume");
  matrix::RunnerOptions o = options_from_environment();
  o.dir = f.resume;
  o.def = matrix::read_matrix_def(o.dir);
  o.resume = true;
  if (f.given.parallel->count() > 0) o.def.parallel = f.parallel;
  if (f.given.interval->count() > 0) o.def.interval_s = f.interval_s;
  if (!f.store.empty()) o.def.store = f.store;
  apply_stop_flags(f, o.def);
  return o;
}

matrix::RunnerOptions new_matrix(const MatrixFlags& f) {
  matrix::RunnerOptions o = options_from_environment();
  if (!f.grid.empty()) {
    matrix::GridFile file = matrix::read_grid_file(f.grid);
    o.def.grid.params = std::move(file.params);
    o.def.grid.excludes = std::move(file.excludes);
  }
  for (const std::string& p : f.params) o.def.grid.params.push_back(matrix::parse_param(p));
  o.def.grid.repeat = f.repeat;
  o.def.grid.command = f.command;
  o.def.parallel = f.parallel;
  if (f.given.per_cell->count() > 0) o.def.gpus_per_cell = f.gpus_per_cell;
  o.def.interval_s = f.interval_s;
  o.def.store = f.store;
  o.def.created = matrix::utc_iso8601(static_cast<double>(std::time(nullptr)));
  apply_stop_flags(f, o.def);
  o.dir = f.output_dir.empty() ? default_dir() : f.output_dir;
  matrix::validate(o.def.grid);  // before anything is written
  return o;
}

// Runs the matrix, or with --slurm writes its job arrays; returns the exit status.
int run_or_write_matrix(const MatrixFlags& f) {
  try {
    matrix::RunnerOptions o = f.resume.empty() ? new_matrix(f) : resumed_matrix(f);
    o.store_path = std::filesystem::absolute(store_path(o.def.store));
    if (f.slurm) {
      o.slurm_max_array_size = f.slurm_max_array_size;
      fmt::print("{}", slurm_message(matrix::write_slurm_matrix(o), o));
      return 0;
    }
    return matrix::run_matrix(o);
  } catch (const matrix::GridError& e) {
    throw CLI::ValidationError("matrix", e.what());
  }
}

}  // namespace

void add_matrix(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "matrix",
      "Run a command over a grid of parameters, each cell a recorded run, GPUs shared out between cells:\n"
      "matrix --param NAME=V1,V2 [--param ...] [--parallel N --gpus-per-cell K] -- CMD {NAME}...\n"
      "A grid has at most 100,000 cells. Exits 0 when every cell succeeded, 1 when one did not (failed,\n"
      "interrupted, timed out), 128+N when signal N stopped it.");
  auto f = std::make_shared<MatrixFlags>();
  add_matrix_grid_flags(*cmd, *f);
  add_matrix_run_flags(*cmd, *f);
  add_store_option(*cmd, f->store);
  cmd->add_option("command", f->command, "The command, after --, with {NAME} placeholders");
  add_matrix_status(*cmd, exit_code);
  add_matrix_collect(*cmd, exit_code);
  add_matrix_run_cell(*cmd, exit_code);
  cmd->callback([cmd, f, &exit_code] {
    for (const char* sub : {"status", "collect", "run-cell"}) {
      if (cmd->get_subcommand(sub)->parsed()) return;
    }
    exit_code = run_or_write_matrix(*f);
  });
}

}  // namespace gpuwatch::cli
