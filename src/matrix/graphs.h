// The matrix's pictures: each cell's timeline beside its seed files
// (DIR/<cell>/gpu_stats_<cell>_<time>_plot.png, as `record
// --generate-graphs` names it), drawn from the cell's stored run once it has
// ended, and DIR/graphs/ with the seeds' four pictures, drawn when the
// summary is written. cairo is loaded at the first picture: without it there
// is one warning and no picture, and the matrix goes on. A picture that
// cannot be drawn is a warning too; it never fails a cell or the matrix.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "core/run.h"
#include "matrix/summary.h"
#include "render/plot/plot_data.h"

namespace gpuwatch::matrix {

// Whether pictures can be drawn here (cairo loads). The first time they
// cannot: one warning on stderr, saying why.
bool pictures_available();

// The cell's timeline from its run in `store`, into `cell_dir`.
void write_cell_plot(const std::filesystem::path& cell_dir, const std::filesystem::path& store,
                     const std::string& run_id);

// A cell's run as DIR/graphs/ needs it: where it is stored, and its memory
// used reduced for the pictures while the summary has it in memory.
struct GraphRun {
  std::filesystem::path store;
  plot::PlotRun reduced;
};
GraphRun graph_run(const std::filesystem::path& store, const RunData& data);

// DIR/graphs/*.png from the configurations' numbers (the summary's) and the
// runs of the cells that succeeded (by run id).
void write_graphs(const std::filesystem::path& dir, const MatrixSummary& summary,
                  const std::map<std::string, GraphRun>& runs);

}  // namespace gpuwatch::matrix
