// Runs a matrix: each cell as `gpuwatch record --name CELL ... -- CMD`, a
// child process of its own (the gpuwatch binary itself), so that every cell
// is an ordinary stored run with record's signal handling, and a crash of one
// cell's recorder cannot take the matrix down.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/system_paths.h"
#include "matrix/state.h"
#include "process/visible_devices.h"

namespace gpuwatch::matrix {

struct RunnerOptions {
  MatrixDef def;
  std::filesystem::path dir;
  bool resume = false;                // run only the cells not done
  std::filesystem::path store_path;   // resolved: the cells' --store
  // `matrix run-cell DIR INDEX` (a Slurm task): only this cell, unless it is
  // done already, and no summary.
  std::optional<std::size_t> only_cell;
  // --slurm: the most tasks one job array may have (Slurm's MaxArraySize).
  std::size_t slurm_max_array_size = 1001;
  // From gpuwatch's environment (cli/ reads it): where to read the system,
  // the matrix's own visible-devices variables (cells stay on its GPUs),
  // and what the cells' recorders inherit.
  SystemPaths paths;
  GpuVisibilityVariables visibility;
  std::vector<std::string> environment;
};

// Exit status: 0 when every cell succeeded, 1 when one did not (failed,
// interrupted, timed out), 128+N when signal N stopped the matrix (130 for
// Ctrl-C). Throws GridError for a grid or GPU request that cannot run here
// (a usage error), std::runtime_error for the rest (the folder cannot be
// written, ...).
int run_matrix(const RunnerOptions& options);

struct SlurmScripts {
  std::size_t cells = 0;
  std::vector<std::filesystem::path> scripts;  // one job array each
};

// `matrix --slurm`: DIR/matrix.json and DIR/slurm.sbatch, nothing run; when
// the cells are more than slurm_max_array_size, one script per array of at
// most that many, DIR/slurm-1.sbatch, slurm-2.sbatch, ... Throws as
// run_matrix does.
SlurmScripts write_slurm_matrix(const RunnerOptions& options);

// `matrix run-cell DIR INDEX`: the cell as the local runner runs it, its
// run stored in DIR/stores/<hostname>.db. Exit status: 0 when the cell
// succeeded, else its own exit status (the command's, 128+N when signal N
// killed it), 1 when it has none (it could not start), 128+N when signal N
// stopped the task (scancel, Slurm's time limit). `o` carries what cli/ read from the environment (paths,
// visibility, environment); the rest comes from DIR.
int run_cell(RunnerOptions o, const std::filesystem::path& dir, std::size_t index);

// The stores `matrix collect` reads: DIR/stores/*.db, then `store` (the
// matrix's own --store, resolved) when it exists.
std::vector<std::filesystem::path> collect_stores(const std::filesystem::path& dir, const std::filesystem::path& store);

// `matrix collect DIR`: summary.txt and summary.json from the cells'
// cell.json and their runs in `stores`, as a local matrix writes them at its
// end. 0 when every cell succeeded, else 1.
int collect_matrix(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& stores);

}  // namespace gpuwatch::matrix
