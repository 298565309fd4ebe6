#include "runs/stored_plot.h"

#include <utility>

#include "render/plot/canvas.h"
#include "store/stored_columns.h"

namespace gpuwatch::plot {

void write_stored_run_plot(const std::filesystem::path& store_path, const RunInfo& run, const PlotOptions& options,
                           const std::filesystem::path& out) {
  file_format(out);  // a bad name fails before the store is read
  check_plot_request(1, options);
  RunData base;
  {
    const auto store = Store::open(store_path, true);
    base = load_run_base(*store, run);
  }
  const PlotRun read = read_for_plot(std::move(base), StoredColumns(store_path, run), options);
  write_plot({&read, 1}, options, out);
}

}  // namespace gpuwatch::plot
