#include "matrix/slurm.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpuwatch::matrix {

namespace {

bool bare_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

// A bash array, one quoted element a line.
std::string bash_array(std::string_view name, const std::vector<std::string>& items) {
  std::string out = fmt::format("{}=(\n", name);
  for (const std::string& item : items) out += fmt::format("  {}\n", shell_quote(item));
  out += ")\n";
  return out;
}

// The cells' commands may name files relative to where the matrix was
// written: the task runs them there, as a local matrix does, wherever sbatch
// ran (a folder missing on the node fails the task, saying so).
std::string enter_workdir(const std::string& workdir) {
  if (workdir.empty()) return {};
  return fmt::format("WORKDIR={}\n", shell_quote(workdir)) +
         "if ! cd \"$WORKDIR\"; then\n"
         "  echo \"gpuwatch matrix: task $task: cannot enter $WORKDIR, where the matrix was written, on $(hostname)\" >&2\n"
         "  exit 2\n"
         "fi\n";
}

}  // namespace

std::string shell_quote(std::string_view word) {
  if (!word.empty() && std::all_of(word.begin(), word.end(), bare_char)) return std::string(word);
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

std::optional<std::string> sbatch_quote(std::string_view value) {
  std::string out = "\"";
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\' || u < 0x20 || u == 0x7f) return std::nullopt;
    if (c == '"') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

std::optional<std::string> sbatch_log_path(std::string_view dir) {
  std::string path;
  for (const char c : dir) path += c == '%' ? std::string("%%") : std::string(1, c);
  return sbatch_quote(path + "/slurm-%A_%a.log");
}

std::string shell_command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& arg : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(arg);
  }
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> slurm_arrays(std::size_t cells, std::size_t max_array_size) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  const std::size_t per_array = std::max<std::size_t>(1, max_array_size);
  for (std::size_t first = 0; first < cells; first += per_array) out.emplace_back(first, std::min(per_array, cells - first));
  return out;
}

std::string render_slurm_script(const SlurmJob& job) {
  std::vector<std::string> names;
  std::vector<std::string> commands;
  for (const Cell& c : job.cells) {
    names.push_back(c.name);
    commands.push_back(shell_command_line(c.command));
  }
  std::string out = "#!/bin/bash\n";
  out += fmt::format("# gpuwatch matrix: a Slurm job array, one task per cell of {} (cells {} to {}).\n", job.dir,
                     job.first_cell, job.first_cell + std::max<std::size_t>(job.cells.size(), 1) - 1);
  out += "# Submit it with sbatch (gpuwatch matrix --slurm printed how).\n";
  out += "# Then: gpuwatch matrix status DIR, and gpuwatch matrix collect DIR for the summary.\n";
  out += fmt::format("#SBATCH --job-name={}\n", job.job_name);
  out += fmt::format("#SBATCH --array=0-{}\n", job.cells.empty() ? 0 : job.cells.size() - 1);
  out += "#SBATCH --ntasks=1\n";
  if (job.gpus_per_cell) out += fmt::format("#SBATCH --gpus-per-task={}\n", *job.gpus_per_cell);
  // Quoted, as sbatch reads quotes (a blank or `#` unquoted would cut the
  // path). A folder sbatch cannot be given (a backslash) keeps Slurm's default
  // log, slurm-%A_%a.out where the task starts; the cell's own output is in
  // DIR/<cell>/output.log either way.
  if (const auto log = sbatch_log_path(job.dir)) out += fmt::format("#SBATCH --output={}\n", *log);
  out += "set -euo pipefail\n\n";
  out += fmt::format("GPUWATCH=${{GPUWATCH:-{}}}\n", shell_quote(job.exe));
  out += fmt::format("DIR={}\n", shell_quote(job.dir));
  out += fmt::format("FIRST={}\n", job.first_cell);
  out += "# The cells by task index, and their commands (run-cell reads them from DIR/matrix.json).\n";
  out += bash_array("CELLS", names);
  out += bash_array("COMMANDS", commands);
  out +=
      "\n"
      "i=${SLURM_ARRAY_TASK_ID:-}\n"
      "if ! [[ $i =~ ^[0-9]+$ ]] || (( i >= ${#CELLS[@]} )); then\n"
      "  echo \"gpuwatch matrix: SLURM_ARRAY_TASK_ID='$i' is no task of this array (0-$(( ${#CELLS[@]} - 1 ))): submit with sbatch\" >&2\n"
      "  exit 2\n"
      "fi\n"
      "task=$(( FIRST + i ))\n";
  out += enter_workdir(job.workdir);
  out +=
      "echo \"gpuwatch matrix: task $task: cell ${CELLS[$i]}: ${COMMANDS[$i]}\"\n"
      "exec \"$GPUWATCH\" matrix run-cell \"$DIR\" \"$task\"\n";
  return out;
}

}  // namespace gpuwatch::matrix
