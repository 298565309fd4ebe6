// The matrix folder on disk: DIR/matrix.json, DIR/<cell>/cell.json,
// DIR/summary.{txt,json}. Every file is written atomically, so that
// `matrix status` and --resume never read a torn one.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "matrix/grid.h"
#include "matrix/grid_file.h"
#include "matrix/state.h"
#include "render/output_format.h"

namespace gpuwatch::matrix {

// Throws std::runtime_error when DIR/matrix.json is missing or unreadable.
MatrixDef read_matrix_def(const std::filesystem::path& dir);
void write_matrix_def(const std::filesystem::path& dir, const MatrixDef& def);

// DIR/<cell>/cell.json, its command the cell's (a CellResult in memory
// holds none: 100,000 of them would hold 100,000 copies).
void write_cell(const std::filesystem::path& dir, const Cell& cell, const CellResult& result);

// Every cell of the grid with what its cell.json says; a cell without one
// (never started) is pending, with its name and values.
std::vector<CellResult> read_cells(const std::filesystem::path& dir, const GridPlan& plan);

// A new matrix's folder with its matrix.json; refused (std::runtime_error)
// when it holds one already. Nothing for --resume, whose folder it is.
void prepare_matrix_dir(const std::filesystem::path& dir, const MatrixDef& def, bool resume);

// This gpuwatch binary's absolute path (what cells and Slurm tasks run).
std::string self_exe();

// The summary files, from the stored runs of the cells that have one
// (stores: where the cells were recorded; a run is looked up in each in
// turn), and the pictures in DIR/graphs/ (matrix/graphs.h). A run that
// cannot be read leaves its cell out of the averages, with a warning on
// stderr.
void write_summary(const std::filesystem::path& dir, const std::vector<CellResult>& cells,
                   const std::vector<std::filesystem::path>& stores);

// --grid FILE.toml: its params and excludes. Throws GridError (a usage
// error) when it cannot be read or parsed.
GridFile read_grid_file(const std::filesystem::path& path);

// Text written atomically (DIR/slurm.sbatch).
void write_text_file(const std::filesystem::path& path, const std::string& text);

// `matrix status DIR`: text or json.
std::string matrix_status(const std::filesystem::path& dir, OutputFormat format);

}  // namespace gpuwatch::matrix
