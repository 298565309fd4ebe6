// The matrix run elsewhere: --slurm's job arrays, and `matrix collect`,
// which writes the summary from what the tasks left.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "matrix/files.h"
#include "matrix/progress.h"
#include "matrix/runner.h"
#include "matrix/slurm.h"

namespace gpuwatch::matrix {

namespace fs = std::filesystem;

SlurmScripts write_slurm_matrix(const RunnerOptions& o) {
  // Planned first: a grid over the limits is refused before the folder exists.
  const GridPlan plan(o.def.grid);
  SlurmJob job;
  job.dir = fs::absolute(o.dir).lexically_normal().string();
  job.workdir = fs::current_path().string();
  job.exe = self_exe();
  job.job_name = "gpuwatch-matrix-" + safe_dir_name(fs::path(job.dir).filename().string());
  job.gpus_per_cell = o.def.gpus_per_cell;
  prepare_matrix_dir(o.dir, o.def, o.resume);
  SlurmScripts out;
  out.cells = plan.size();
  const auto arrays = slurm_arrays(plan.size(), o.slurm_max_array_size);
  // Zero-padded, so that the shell lists them in order.
  const int width = static_cast<int>(fmt::format("{}", arrays.size()).size());
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    const auto [first, count] = arrays[a];
    job.first_cell = first;
    job.cells.clear();
    for (std::size_t i = first; i < first + count; ++i) job.cells.push_back(plan.cell(i));
    const fs::path script =
        o.dir / (arrays.size() == 1 ? std::string("slurm.sbatch") : fmt::format("slurm-{:0{}}.sbatch", a + 1, width));
    write_text_file(script, render_slurm_script(job));
    fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
    out.scripts.push_back(script);
  }
  return out;
}

std::vector<fs::path> collect_stores(const fs::path& dir, const fs::path& store) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir / "stores", ec)) {
    if (entry.path().extension() == ".db") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  if (fs::exists(store, ec)) out.push_back(store);
  return out;
}

int collect_matrix(const fs::path& dir, const std::vector<fs::path>& stores) {
  const MatrixDef def = read_matrix_def(dir);
  const std::vector<CellResult> cells = read_cells(dir, GridPlan(def.grid));
  write_summary(dir, cells, stores);
  fmt::print(stderr, "{}: summary in {}\n", render_progress_line(compute_progress(cells, unix_now(), def.parallel)),
             (dir / "summary.txt").string());
  return std::all_of(cells.begin(), cells.end(), [](const CellResult& c) { return c.state == CellState::Done; }) ? 0 : 1;
}

}  // namespace gpuwatch::matrix
