// `gpuwatch matrix --slurm`: DIR/slurm.sbatch, a Slurm job array with one
// task per cell. Each task runs `gpuwatch matrix run-cell DIR INDEX`, which
// runs the cell as the local runner does; the script maps the task's index
// to its cell through bash arrays of the cells' names and commands (for the
// log: the cell runs from DIR/matrix.json). Pure: text out, no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "matrix/grid.h"

namespace gpuwatch::matrix {

struct SlurmJob {
  std::string dir;                   // absolute: the tasks may start elsewhere
  std::string exe;                   // the gpuwatch binary, absolute
  std::string job_name;
  std::optional<int> gpus_per_cell;  // --gpus-per-task; none: the partition's default
  std::vector<Cell> cells;
};

// One word for bash: bare when it is only [A-Za-z0-9_@%+=:,./-] (and not
// empty), else in single quotes, a ' written as '\''.
std::string shell_quote(std::string_view word);

// The command as one line of shell words.
std::string shell_command_line(const std::vector<std::string>& argv);

std::string render_slurm_script(const SlurmJob& job);

}  // namespace gpuwatch::matrix
