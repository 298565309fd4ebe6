#include "runs/stored_plot.h"

#include <utility>

#include "render/plot/canvas.h"
#include "store/rollup_codec.h"
#include "store/rollups.h"
#include "store/sqlite_util.h"
#include "store/stored_columns.h"

namespace gpuwatch::plot {

StoredPlotRollups::StoredPlotRollups(std::filesystem::path store_path, const RunInfo& run,
                                     std::vector<DeviceMetric> metrics)
    : store_path_(std::move(store_path)),
      run_row_(run.row_id),
      metrics_(std::move(metrics)),
      complete_(has_rollups(store_path_, run)) {}

std::optional<DeviceRollups> StoredPlotRollups::rollups(int device_index) const {
  if (!complete_) return std::nullopt;
  try {
    const sql::Db db = sql::open(store_path_.string(), SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, store_path_);
    sql::Transaction txn(db.get(), sql::Transaction::Kind::Read);
    // A GPU without a blob of any metric was not rolled up (a damaged file).
    sql::Stmt any(db.get(), "SELECT 1 FROM rollups WHERE run_id = ?1 AND device_idx = ?2 LIMIT 1");
    if (!any.bind(1, run_row_).bind(2, device_index).step()) return std::nullopt;
    DeviceRollups out;
    out.device_index = device_index;
    out.metrics.resize(kDeviceMetricCount);
    sql::Stmt q(db.get(), "SELECT data FROM rollups WHERE run_id = ?1 AND device_idx = ?2 AND metric = ?3");
    for (const DeviceMetric m : metrics_) {
      q.reset();
      if (!q.bind(1, run_row_).bind(2, device_index).bind(3, info(m).name).step()) continue;  // no values
      auto minutes = decode_rollups(q.blob(0), info(m).scale);
      if (!minutes) return std::nullopt;
      out.metrics[static_cast<std::size_t>(m)] = std::move(*minutes);
    }
    txn.commit();
    return out;
  } catch (const StoreError&) {
    return std::nullopt;  // the chunks are the data; rollups only make reading faster
  }
}

RunData load_plot_base(Store& store, const RunInfo& run) {
  LoadOptions options;
  options.device_samples = false;
  options.host_samples = false;
  return store.load(run, options);
}

void write_stored_run_plot(const std::filesystem::path& store_path, const RunInfo& run, const PlotOptions& options,
                           const std::filesystem::path& out) {
  file_format(out);  // a bad name fails before the store is read
  check_plot_request(1, options);
  RunData base;
  {
    const auto store = Store::open(store_path, true);
    base = load_plot_base(*store, run);
  }
  const StoredPlotRollups rollups(store_path, base.run, plot_needs(options).columns());
  const PlotRun read = read_for_plot(std::move(base), StoredColumns(store_path, run), options, &rollups);
  write_plot({&read, 1}, options, out);
}

}  // namespace gpuwatch::plot
