// The picture of a stored run, for code that holds a store (render draws runs
// it is handed and never opens the store itself).
#pragma once

#include <filesystem>

#include "render/plot/plot.h"
#include "store/store.h"

namespace gpuwatch::plot {

// The picture of a run in the store file `store_path` (`record
// --generate-graphs`): its GPUs are read one at a time, on read-only
// connections of their own, so a recorder may hold the store open.
void write_stored_run_plot(const std::filesystem::path& store_path, const RunInfo& run, const PlotOptions& options,
                           const std::filesystem::path& out);

}  // namespace gpuwatch::plot
