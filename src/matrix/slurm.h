// `gpuwatch matrix --slurm`: DIR/slurm.sbatch, a Slurm job array with one
// task per cell (several arrays when the cells are more than one array may
// hold). Each task runs `gpuwatch matrix run-cell DIR INDEX`, which
// runs the cell as the local runner does; the script maps the task's index
// to its cell through bash arrays of the cells' names and commands (for the
// log: the cell runs from DIR/matrix.json). Pure: text out, no I/O.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "matrix/grid.h"

namespace gpuwatch::matrix {

// Slurm's default MaxArraySize (slurm.conf): array indices run 0 to 1000.
inline constexpr std::size_t kSlurmDefaultMaxArraySize = 1001;

struct SlurmJob {
  std::string dir;                   // absolute: the tasks may start elsewhere
  std::string exe;                   // the gpuwatch binary, absolute
  std::string job_name;
  std::optional<int> gpus_per_cell;  // --gpus-per-task; none: the partition's default
  // The cells of this array, in order: task i runs cell first_cell + i.
  std::size_t first_cell = 0;
  std::vector<Cell> cells;
};

// A matrix of `cells` cells as job arrays of at most `max_array_size` tasks
// each (Slurm refuses an index at or above its MaxArraySize): (first cell,
// count) per array, in order. One array when the cells fit.
std::vector<std::pair<std::size_t, std::size_t>> slurm_arrays(std::size_t cells, std::size_t max_array_size);

// One word for bash: bare when it is only [A-Za-z0-9_@%+=:,./-] (and not
// empty), else in single quotes, a ' written as '\''.
std::string shell_quote(std::string_view word);

// The command as one line of shell words.
std::string shell_command_line(const std::vector<std::string>& argv);

std::string render_slurm_script(const SlurmJob& job);

}  // namespace gpuwatch::matrix
