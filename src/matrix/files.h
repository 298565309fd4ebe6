// The matrix folder on disk: DIR/matrix.json, DIR/<cell>/cell.json,
// DIR/summary.{txt,json}. Every file is written atomically, so that
// `matrix status` and --resume never read a torn one.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "matrix/grid.h"
#include "matrix/state.h"

namespace gpuwatch::matrix {

// Throws std::runtime_error when DIR/matrix.json is missing or unreadable.
MatrixDef read_matrix_def(const std::filesystem::path& dir);
void write_matrix_def(const std::filesystem::path& dir, const MatrixDef& def);

void write_cell(const std::filesystem::path& dir, const Cell& cell, const CellResult& result);

// Every cell of the grid with what its cell.json says; a cell without one
// (never started) is pending, with its name, values and command.
std::vector<CellResult> read_cells(const std::filesystem::path& dir, const std::vector<Cell>& cells);

// The summary files, from the stored runs of the cells that have one
// (store_path: the store the cells were recorded into). A run that cannot
// be read leaves its cell out of the averages, with a warning on stderr.
void write_summary(const std::filesystem::path& dir, const std::vector<CellResult>& cells,
                   const std::filesystem::path& store_path);

// `matrix status DIR`: text or json.
std::string matrix_status(const std::filesystem::path& dir, const std::string& format);

}  // namespace gpuwatch::matrix
