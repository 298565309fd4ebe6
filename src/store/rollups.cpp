// Per-minute rollups of a finished run: built from its chunks once the run is
// complete (the time weights need the whole run's typical gap), written in
// one transaction, read back per device for `report`.
#include <fmt/format.h>

#include "store/rollup_codec.h"
#include "store/store_impl.h"

namespace gpuwatch {
namespace {

// Columns decoded per pass over a device's chunks while building: each holds
// a double per sample (10 MB for 35 h at 10 Hz), so a few at a time keep the
// recorder's closing peak near 100 MB at that size.
constexpr std::size_t kMetricsPerPass = 6;

bool has_rollup_tables(sqlite3* db) {
  sql::Stmt q(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rollup_runs'");
  return q.step();
}

struct Blob {
  int device = 0;
  std::string_view metric;
  std::vector<std::uint8_t> data;
};

}  // namespace

bool Store::Impl::has_rollups_locked(std::int64_t run_row) {
  if (!has_rollup_tables(db.get())) return false;
  sql::Stmt q(db.get(), "SELECT 1 FROM rollup_runs WHERE run_id = ?1 AND format = ?2");
  q.bind(1, run_row).bind(2, std::int64_t{kRollupFormat});
  return q.step();
}

bool Store::Impl::build_rollups_locked(const RunInfo& run) {
  require_writable();
  if (run.status == RunStatus::Recording || run.row_id == active_row) return false;
  if (has_rollups_locked(run.row_id)) return true;
  std::vector<int> devices;
  {
    sql::Stmt q(db.get(), R"sql(
      SELECT idx FROM devices WHERE run_id = ?1 UNION SELECT DISTINCT device_idx FROM sample_chunks WHERE run_id = ?1)sql");
    q.bind(1, run.row_id);
    while (q.step()) devices.push_back(static_cast<int>(q.int64(0)));
  }
  std::vector<DeviceMetric> metrics;
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (kDeviceMetrics[m].cadence != Cadence::Static) metrics.push_back(static_cast<DeviceMetric>(m));
  }
  std::vector<Blob> blobs;
  for (const int device : devices) {
    for (std::size_t i = 0; i < metrics.size(); i += kMetricsPerPass) {
      LoadOptions options;
      options.device = device;
      options.host = false;
      options.metrics.emplace(metrics.begin() + static_cast<std::ptrdiff_t>(i),
                              metrics.begin() + static_cast<std::ptrdiff_t>(std::min(i + kMetricsPerPass, metrics.size())));
      const RunData data = load_locked(run, options);
      // A chunk that does not decode would make the rollups disagree with
      // what the chunks say today: leave the run to be read from its chunks.
      for (const Event& e : data.events) {
        if (e.kind == "store_corrupt_chunk") return false;
      }
      if (data.devices.empty()) continue;
      const DeviceSeries& s = data.devices.front();
      for (const DeviceMetric m : *options.metrics) {
        const auto k = static_cast<std::size_t>(m);
        const std::vector<ColumnRollup> minutes =
            rollup_column(s.mono_ns, s.values[k], run.start_mono_ns, kDeviceMetrics[k].scale);
        if (!minutes.empty()) blobs.push_back({device, kDeviceMetrics[k].name, encode_rollups(minutes, kDeviceMetrics[k].scale)});
      }
    }
  }
  sql::Transaction txn(db.get(), sql::Transaction::Kind::Write);
  sql::Stmt clear(db.get(), "DELETE FROM rollups WHERE run_id = ?1");
  clear.bind(1, run.row_id).run();
  sql::Stmt insert(db.get(), "INSERT INTO rollups (run_id, device_idx, metric, data) VALUES (?1, ?2, ?3, ?4)");
  for (const Blob& b : blobs) {
    insert.reset();
    insert.bind(1, run.row_id).bind(2, std::int64_t{b.device}).bind(3, b.metric).bind_blob(4, b.data).run();
  }
  sql::Stmt done(db.get(), "INSERT OR REPLACE INTO rollup_runs (run_id, format) VALUES (?1, ?2)");
  done.bind(1, run.row_id).bind(2, std::int64_t{kRollupFormat}).run();
  txn.commit();
  return true;
}

void Store::Impl::rollup_closed_run_locked(std::int64_t run_row) {
  try {
    auto found = query_runs("WHERE id = ?", [run_row](sql::Stmt& q) { q.bind(1, run_row); });
    if (!found.empty()) build_rollups_locked(found.front());
  } catch (const StoreError&) {
    // The chunks stay the source; `report` tries again.
  }
}

std::optional<DeviceRollups> Store::Impl::load_rollups_locked(const RunInfo& run, int index) {
  sql::Transaction txn(db.get(), sql::Transaction::Kind::Read);
  if (!has_rollups_locked(run.row_id)) return std::nullopt;
  DeviceRollups out;
  out.device_index = index;
  out.metrics.resize(kDeviceMetricCount);
  sql::Stmt q(db.get(), "SELECT metric, data FROM rollups WHERE run_id = ?1 AND device_idx = ?2");
  q.bind(1, run.row_id).bind(2, std::int64_t{index});
  while (q.step()) {
    const int m = metric_index_by_name(kDeviceMetrics, q.text(0));
    if (m < 0) continue;  // a metric this build does not know
    auto minutes = decode_rollups(q.blob(1), kDeviceMetrics[static_cast<std::size_t>(m)].scale);
    if (!minutes) return std::nullopt;
    out.metrics[static_cast<std::size_t>(m)] = std::move(*minutes);
  }
  txn.commit();
  return out;
}

bool Store::build_rollups(const RunInfo& run) {
  std::lock_guard lock(impl_->db_mutex);
  auto found = impl_->query_runs("WHERE public_id = ?", [&run](sql::Stmt& q) { q.bind(1, run.id); });
  if (found.empty()) throw StoreError(fmt::format("run {} is not in the store {}", run.id, impl_->path.string()));
  return impl_->build_rollups_locked(found.front());
}

bool Store::has_rollups(const RunInfo& run) {
  std::lock_guard lock(impl_->db_mutex);
  sql::Transaction txn(impl_->db.get(), sql::Transaction::Kind::Read);
  return impl_->has_rollups_locked(run.row_id);
}

std::optional<DeviceRollups> Store::load_rollups(const RunInfo& run, int index) {
  std::lock_guard lock(impl_->db_mutex);
  return impl_->load_rollups_locked(run, index);
}

}  // namespace gpuwatch
