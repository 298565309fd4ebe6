// Per-minute rollups of a finished run: built from its chunks once the run is
// complete (the time weights need the whole run's typical gap), written in
// one transaction, read back per device for `report`.
#include "store/rollups.h"

#include <fmt/format.h>

#include "store/rollup_codec.h"
#include "store/sqlite_util.h"

namespace gpuwatch {
namespace {

// Columns decoded per pass over a device's chunks while building: each holds
// a double per sample (10 MB for 35 h at 10 Hz), so a few at a time keep the
// recorder's closing peak near 100 MB at that size.
constexpr std::size_t kRollupMetricsPerPass = 3;
sql::Db open_db(const std::filesystem::path& path, bool writable) {
  const int flags = (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
  return sql::open(path.string(), flags, path);
}

bool has_rollup_tables(sqlite3* db) {
  sql::Stmt q(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rollup_runs'");
  return q.step();
}

bool has_rollups_in(sqlite3* db, std::int64_t run_row) {
  if (!has_rollup_tables(db)) return false;
  sql::Stmt q(db, "SELECT 1 FROM rollup_runs WHERE run_id = ?1 AND format = ?2");
  q.bind(1, run_row).bind(2, std::int64_t{kRollupFormat});
  return q.step();
}

struct Blob {
  int device = 0;
  std::string_view metric;
  std::vector<std::uint8_t> data;
};

// The run as the store sees it now (status settled), by row id or public id.
std::optional<RunInfo> find_run(Store& store, const RunInfo& run) {
  for (RunInfo& r : store.list_runs()) {
    if (run.row_id != 0 ? r.row_id == run.row_id : r.id == run.id) return std::move(r);
  }
  return std::nullopt;
}

// Every column's rollups, or nullopt when a chunk does not decode (the
// rollups would then disagree with what the chunks say today).
std::optional<std::vector<Blob>> make_blobs(Store& store, const RunInfo& run) {
  std::vector<DeviceMetric> metrics;
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (kDeviceMetrics[m].cadence != Cadence::Static) metrics.push_back(static_cast<DeviceMetric>(m));
  }
  LoadOptions facts;
  facts.device_samples = false;
  facts.host = false;
  std::vector<Blob> blobs;
  for (const DeviceSeries& device : store.load(run, facts).devices) {
    for (std::size_t i = 0; i < metrics.size(); i += kRollupMetricsPerPass) {
      LoadOptions options;
      options.device = device.info.index;
      options.host = false;
      options.device_wall_clock = false;
      const std::size_t end = std::min(i + kRollupMetricsPerPass, metrics.size());
      options.metrics.emplace(metrics.begin() + static_cast<std::ptrdiff_t>(i),
                              metrics.begin() + static_cast<std::ptrdiff_t>(end));
      const RunData data = store.load(run, options);
      for (const Event& e : data.events) {
        if (e.kind == "store_corrupt_chunk") return std::nullopt;
      }
      if (data.devices.empty()) continue;
      const DeviceSeries& s = data.devices.front();
      for (const DeviceMetric m : *options.metrics) {
        const auto k = static_cast<std::size_t>(m);
        const std::vector<ColumnRollup> minutes =
            rollup_column(s.mono_ns, s.values[k], run.start_mono_ns, kDeviceMetrics[k].scale);
        if (!minutes.empty()) {
          blobs.push_back({device.info.index, kDeviceMetrics[k].name, encode_rollups(minutes, kDeviceMetrics[k].scale)});
        }
      }
    }
  }
  return blobs;
}

}  // namespace

bool build_rollups(const std::filesystem::path& store_path, const RunInfo& asked) {
  auto store = Store::open(store_path, false);  // migrates: the tables exist from here on
  const std::optional<RunInfo> run = find_run(*store, asked);
  if (!run) throw StoreError(fmt::format("run {} is not in the store {}", asked.id, store_path.string()));
  if (run->status == RunStatus::Recording) return false;
  const sql::Db db = open_db(store_path, true);
  if (has_rollups_in(db.get(), run->row_id)) return true;
  const auto blobs = make_blobs(*store, *run);
  if (!blobs) return false;
  sql::Transaction txn(db.get(), sql::Transaction::Kind::Write);
  sql::Stmt clear(db.get(), "DELETE FROM rollups WHERE run_id = ?1");
  clear.bind(1, run->row_id).run();
  sql::Stmt insert(db.get(), "INSERT INTO rollups (run_id, device_idx, metric, data) VALUES (?1, ?2, ?3, ?4)");
  for (const Blob& b : *blobs) {
    insert.reset();
    insert.bind(1, run->row_id).bind(2, std::int64_t{b.device}).bind(3, b.metric).bind_blob(4, b.data).run();
  }
  sql::Stmt done(db.get(), "INSERT OR REPLACE INTO rollup_runs (run_id, format) VALUES (?1, ?2)");
  done.bind(1, run->row_id).bind(2, std::int64_t{kRollupFormat}).run();
  txn.commit();
  return true;
}

void build_rollups_quietly(const std::filesystem::path& store_path, std::int64_t run_row) noexcept {
  try {
    RunInfo run;
    run.row_id = run_row;
    build_rollups(store_path, run);
  } catch (const std::exception&) {
    // The chunks stay the source; `report` tries again.
  }
}

bool has_rollups(const std::filesystem::path& store_path, const RunInfo& run) {
  try {
    const sql::Db db = open_db(store_path, false);
    return has_rollups_in(db.get(), run.row_id);
  } catch (const StoreError&) {
    return false;
  }
}

std::optional<DeviceRollups> StoredRollups::rollups(int index) const {
  try {
    const sql::Db db = open_db(store_path_, false);
    sql::Transaction txn(db.get(), sql::Transaction::Kind::Read);
    if (!has_rollups_in(db.get(), run_.row_id)) return std::nullopt;
    DeviceRollups out;
    out.device_index = index;
    out.metrics.resize(kDeviceMetricCount);
    sql::Stmt q(db.get(), "SELECT metric, data FROM rollups WHERE run_id = ?1 AND device_idx = ?2");
    q.bind(1, run_.row_id).bind(2, std::int64_t{index});
    bool any = false;  // a device without blobs (a damaged file) is read from its chunks
    while (q.step()) {
      any = true;
      const int m = metric_index_by_name(kDeviceMetrics, q.text(0));
      if (m < 0) continue;  // a metric this build does not know
      auto minutes = decode_rollups(q.blob(1), kDeviceMetrics[static_cast<std::size_t>(m)].scale);
      if (!minutes) return std::nullopt;
      out.metrics[static_cast<std::size_t>(m)] = std::move(*minutes);
    }
    txn.commit();
    if (!any) return std::nullopt;
    return out;
  } catch (const StoreError&) {
    return std::nullopt;  // the chunks are the data; rollups only make reading faster
  }
}

}  // namespace gpuwatch
