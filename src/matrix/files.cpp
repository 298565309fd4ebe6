#include "matrix/files.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/run_group.h"
#include "base/atomic_file.h"
#include "matrix/graphs.h"
#include "matrix/progress.h"
#include "matrix/summary.h"
#include "store/store.h"

namespace gpuwatch::matrix {

namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& path, const std::string& text) {
  write_file_atomically(path, [&](const WriteChunk& write) { write(text); });
}

CellResult pending_result(const Cell& cell) {
  CellResult r;
  r.name = cell.name;
  r.config = cell.config;
  r.rep = cell.rep;
  r.values = cell.values;
  return r;
}

}  // namespace

MatrixDef read_matrix_def(const fs::path& dir) {
  const auto text = read_text(dir / "matrix.json");
  if (!text) throw std::runtime_error(fmt::format("{}: no matrix.json there (not a matrix folder?)", dir.string()));
  try {
    return parse_matrix_json(*text);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", (dir / "matrix.json").string(), e.what()));
  }
}

void write_matrix_def(const fs::path& dir, const MatrixDef& def) { write_text(dir / "matrix.json", render_matrix_json(def)); }

void write_cell(const fs::path& dir, const Cell& cell, const CellResult& result) {
  CellResult with_command = result;
  with_command.command = cell.command;
  write_text(dir / cell.dir / "cell.json", render_cell_json(with_command));
}

std::vector<CellResult> read_cells(const fs::path& dir, const GridPlan& plan) {
  std::vector<CellResult> out;
  out.reserve(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Cell cell = plan.cell(i);
    const auto text = read_text(dir / cell.dir / "cell.json");
    std::optional<CellResult> parsed = text ? parse_cell_json(*text) : std::nullopt;
    // A cell.json of another grid (the folder reused by hand) does not count.
    if (parsed && parsed->name == cell.name) {
      parsed->command.clear();
      parsed->config = cell.config;
      out.push_back(std::move(*parsed));
    } else {
      out.push_back(pending_result(cell));
    }
  }
  return out;
}

void prepare_matrix_dir(const fs::path& dir, const MatrixDef& def, bool resume) {
  if (resume) return;  // matrix.json is there: the caller read the grid from it
  if (fs::exists(dir / "matrix.json")) {
    throw std::runtime_error(
        fmt::format("{} already holds a matrix: use --resume {} to go on with it", dir.string(), dir.string()));
  }
  fs::create_directories(dir);
  write_matrix_def(dir, def);
}

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("gpuwatch") : p.string();
}

GridFile read_grid_file(const fs::path& path) {
  const auto text = read_text(path);
  if (!text) throw GridError(fmt::format("--grid {}: cannot be read", path.string()));
  return parse_grid_toml(*text, path.string());
}

void write_text_file(const fs::path& path, const std::string& text) { write_text(path, text); }

void write_summary(const fs::path& dir, const std::vector<CellResult>& cells, const std::vector<fs::path>& stores) {
  std::map<std::string, GroupValues> values;
  std::map<std::string, GraphRun> graph_runs;  // the same runs, for DIR/graphs/
  std::vector<std::pair<fs::path, std::unique_ptr<Store>>> open_stores;
  bool opened = false;  // only when a cell has a run: a matrix whose cells never ran may have no store
  for (const CellResult& c : cells) {
    if (c.run_id.empty() || c.state != CellState::Done) continue;
    std::string error = "in no store";
    if (!opened) {
      opened = true;
      for (const fs::path& p : stores) {
        try {
          open_stores.emplace_back(p, Store::open(p, true));
        } catch (const std::exception& e) {
          error = e.what();
        }
      }
    }
    bool found = false;
    for (const auto& [path, store] : open_stores) {
      try {
        const RunData data = store->load(store->resolve(c.run_id));
        values[c.run_id] = group_values(data);
        if (pictures_available()) graph_runs.emplace(c.run_id, graph_run(path, data));
        found = true;
        break;
      } catch (const std::exception& e) {
        error = e.what();
      }
    }
    if (!found) fmt::print(stderr, "gpuwatch: warning: matrix cell {}: run {}: {}\n", c.name, c.run_id, error);
  }
  const MatrixSummary summary = build_summary(cells, values);
  write_text(dir / "summary.txt", render_summary_text(summary));
  write_text(dir / "summary.json", render_summary_json(summary));
  write_graphs(dir, summary, graph_runs);
}

std::string matrix_status(const fs::path& dir, OutputFormat format) {
  const MatrixDef def = read_matrix_def(dir);
  const std::vector<CellResult> cells = read_cells(dir, GridPlan(def.grid));
  const Progress p = compute_progress(cells, unix_now(), def.parallel);
  return format == OutputFormat::json ? render_status_json(p, cells, dir.string()) : render_status_text(p, cells);
}

}  // namespace gpuwatch::matrix
