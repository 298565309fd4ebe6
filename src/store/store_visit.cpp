// A device's chunks one at a time (Store::visit_device_chunks): what lets the
// finish of a run of any length stay within a few MiB (issue 25).
#include <cmath>

#include "store/chunk_columns.h"

namespace gpuwatch {

bool Store::visit_device_chunks(const RunInfo& run, int device_index,
                                const std::function<void(const DeviceSeries&)>& visit) {
  std::lock_guard lock(impl_->db_mutex);
  sqlite3* raw = impl_->db.get();
  sql::Transaction txn(raw, sql::Transaction::Kind::Read);
  std::string recorded;  // a device only its chunks name has this build's columns, as load() reads it
  {
    sql::Stmt columns(raw, "SELECT chunk_columns FROM devices WHERE run_id = ?1 AND idx = ?2");
    columns.bind(1, run.row_id).bind(2, std::int64_t{device_index});
    if (columns.step()) recorded = columns.text(0);
  }
  const std::vector<int> sources = column_sources(kDeviceMetrics, recorded);
  sql::Stmt chunks(raw, R"sql(
    SELECT first_mono_ns, last_mono_ns, count, data FROM sample_chunks
    WHERE run_id = ?1 AND device_idx = ?2 ORDER BY first_mono_ns, id)sql");
  chunks.bind(1, run.row_id).bind(2, std::int64_t{device_index});
  DeviceSeries piece;
  piece.info.index = device_index;
  piece.values.resize(kDeviceMetricCount);
  bool readable = true;
  const auto corrupt = [&readable](std::int64_t, std::optional<int>, std::string_view) { readable = false; };
  while (readable && chunks.step()) {
    piece.mono_ns.clear();
    for (std::vector<double>& column : piece.values) column.clear();
    append_device_chunk(chunks, 0, piece, sources, false, corrupt);
    if (readable) visit(piece);
  }
  txn.commit();
  return readable;
}

}  // namespace gpuwatch
