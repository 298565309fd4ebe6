// Runs a matrix: each cell as `gpuwatch record --name CELL ... -- CMD`, a
// child process of its own (the gpuwatch binary itself), so that every cell
// is an ordinary stored run with record's signal handling, and a crash of one
// cell's recorder cannot take the matrix down.
#pragma once

#include <filesystem>
#include <string>

#include "matrix/state.h"

namespace gpuwatch::matrix {

struct RunnerOptions {
  MatrixDef def;
  std::filesystem::path dir;
  bool resume = false;                // run only the cells not done
  std::filesystem::path store_path;   // resolved: the cells' --store
};

// Exit status: 0 when every cell succeeded, 1 when one did not, 128+N when
// signal N stopped the matrix (130 for Ctrl-C). Throws GridError for a grid
// or GPU request that cannot run here (a usage error), std::runtime_error
// for the rest (the folder cannot be written, ...).
int run_matrix(const RunnerOptions& options);

}  // namespace gpuwatch::matrix
