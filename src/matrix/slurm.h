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
  // Absolute: where `matrix --slurm` ran. The tasks run their cells there,
  // as a local matrix runs them where it was started, whatever folder sbatch
  // ran in (its default working folder); empty: where the task starts.
  std::string workdir;
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

// A value for an #SBATCH line as sbatch reads it: in double quotes (a blank,
// `#` or `'` inside is then literal), `"` written `\"`; nullopt for a value
// sbatch cannot be given there (a backslash, which its parser would drop, or
// a control character).
std::optional<std::string> sbatch_quote(std::string_view value);

// The --output value for the tasks' logs in `dir`, DIR/slurm-%A_%a.log, `%`
// of the folder written `%%` (Slurm's file name patterns), sbatch_quote'd;
// nullopt where that cannot be (a backslash would also turn Slurm's
// patterns off: every task one log).
std::optional<std::string> sbatch_log_path(std::string_view dir);

// The command as one line of shell words.
std::string shell_command_line(const std::vector<std::string>& argv);

std::string render_slurm_script(const SlurmJob& job);

}  // namespace gpuwatch::matrix
