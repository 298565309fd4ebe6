// Per-minute rollups of a finished run: built from its chunks once the run is
// complete (the time weights need the whole run's typical gap), streaming: a
// few passes over each device's chunks, one chunk decoded at a time, and
// each column's blob written a piece at a time, so that the recorder's
// finish stays within a few MiB whatever the run's length (issue 25).
#include "store/rollups.h"

#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "core/time_weights.h"
#include "core/detector_minutes.h"
#include "store/detector_codec.h"
#include "store/rollup_codec.h"
#include "store/sqlite_util.h"

namespace gpuwatch {
namespace {

// A column's encoded minutes are written once this many bytes wait.
constexpr std::size_t kBlobPieceBytes = 64 * 1024;

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

// The run as the store sees it now (status settled), by row id or public id.
std::optional<RunInfo> find_run(Store& store, const RunInfo& run) {
  for (RunInfo& r : store.list_runs()) {
    if (run.row_id != 0 ? r.row_id == run.row_id : r.id == run.id) return std::move(r);
  }
  return std::nullopt;
}

// A column of one device, and what its minutes need from the whole run: the
// time weights' cap (the median gap) and whether its values stay exact.
struct ColumnPlan {
  DeviceMetric metric;
  MedianGapFinder gaps;
  RollupExactness exactness;
  bool has_values = false;
  // Once planned (the finders above are then emptied).
  std::int64_t half_gap_cap_ns = 1;
  bool exact = true;

  explicit ColumnPlan(DeviceMetric m) : metric(m), exactness(info(m).scale) {}
  void settle() {
    half_gap_cap_ns = gaps.half_gap_cap_ns();
    exact = exactness.exact();
    gaps = {};
    exactness = RollupExactness(info(metric).scale);
  }
};

std::vector<ColumnPlan> rolled_columns() {
  std::vector<ColumnPlan> plans;
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (kDeviceMetrics[m].cadence != Cadence::Static) plans.emplace_back(static_cast<DeviceMetric>(m));
  }
  return plans;
}

// Each present value of the plan's column in `piece`, with its time.
template <typename Fn>
void for_each_value(const DeviceSeries& piece, DeviceMetric m, Fn&& fn) {
  const std::vector<double>& values = piece.values[static_cast<std::size_t>(m)];
  if (values.size() != piece.mono_ns.size()) return;  // a metric the run never recorded
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isnan(values[i])) fn(piece.mono_ns[i], values[i]);
  }
}

// The whole-run quantities of every column of `device`: passes over its
// chunks until every median gap is known (two for regular sampling). False
// when a chunk does not decode: the rollups would disagree with what the
// chunks say today.
bool plan_device(Store& store, const RunInfo& run, int device, std::vector<ColumnPlan>& plans) {
  for (bool first = true;; first = false) {
    const bool readable = store.visit_device_chunks(run, device, [&](const DeviceSeries& piece) {
      for (ColumnPlan& p : plans) {
        if (p.gaps.done()) continue;
        for_each_value(piece, p.metric, [&p, first](std::int64_t t, double v) {
          if (first) p.exactness.add(v);
          p.has_values = true;
          p.gaps.add(t);
        });
      }
    });
    if (!readable) return false;
    bool known = true;
    for (ColumnPlan& p : plans) known = p.gaps.end_pass() && known;
    if (!known) continue;
    for (ColumnPlan& p : plans) p.settle();
    return true;
  }
}

// The detectors' weights come from the columns they read (core/detector_minutes.h).
DetectorCaps detector_caps(const std::vector<ColumnPlan>& plans) {
  DetectorCaps caps;
  for (const ColumnPlan& p : plans) {
    if (p.metric == DeviceMetric::GpuUtilPercent) caps.util_half_gap_ns = p.half_gap_cap_ns;
    if (p.metric == DeviceMetric::MemUsedBytes) caps.memory_half_gap_ns = p.half_gap_cap_ns;
    if (p.metric == DeviceMetric::PcieLinkGen) caps.link_half_gap_ns = p.half_gap_cap_ns;
  }
  return caps;
}

// One pass building every column's minutes; `emit(column, minute)`; and,
// when given, the detectors' minutes from the same pieces.
bool roll_device(Store& store, const RunInfo& run, int device, const std::vector<ColumnPlan>& plans,
                 const std::function<void(std::size_t, const ColumnRollup&)>& emit,
                 DetectorMinutesBuilder* detectors = nullptr) {
  std::vector<ColumnRollupBuilder> builders;
  builders.reserve(plans.size());
  for (std::size_t j = 0; j < plans.size(); ++j) {
    builders.emplace_back(run.start_mono_ns, plans[j].half_gap_cap_ns, plans[j].exact,
                          [&emit, j](const ColumnRollup& m) { emit(j, m); });
  }
  const bool readable = store.visit_device_chunks(run, device, [&](const DeviceSeries& piece) {
    if (detectors) detectors->add(piece);
    for (std::size_t j = 0; j < plans.size(); ++j) {
      if (!plans[j].has_values) continue;
      ColumnRollupBuilder& b = builders[j];
      for_each_value(piece, plans[j].metric, [&b](std::int64_t t, double v) { b.add(t, v); });
    }
  });
  for (ColumnRollupBuilder& b : builders) b.finish();
  return readable;
}

// One column's blob as its minutes come (rollup_codec.h's layout): a first
// pass only counts minutes and bytes, the second writes them a piece at a
// time into a zeroblob of that length.
struct ColumnBlob {
  std::uint64_t minutes = 0;
  std::size_t bytes = 0;  // of the minutes, after the header
  std::int64_t prev_minute = 0;
  std::int64_t rowid = 0;
  std::size_t written = 0;  // bytes already in the row
  std::vector<std::uint8_t> pending;

  void add(const ColumnRollup& m, double scale) {
    encode_rollup_minute(pending, m, prev_minute, scale);
    prev_minute = m.minute;
  }
};

void write_piece(sqlite3* db, ColumnBlob& blob) {
  sql::write_blob(db, "rollups", "data", blob.rowid, blob.written, blob.pending);
  blob.written += blob.pending.size();
  blob.pending.clear();
}

// Inserts the device's rows, each a zeroblob of its final length, with its
// header waiting to be written first.
void insert_rows(sqlite3* db, std::int64_t run_row, int device, const std::vector<ColumnPlan>& plans,
                 std::vector<ColumnBlob>& blobs) {
  sql::Stmt insert(db, "INSERT INTO rollups (run_id, device_idx, metric, data) VALUES (?1, ?2, ?3, zeroblob(?4))");
  for (std::size_t j = 0; j < plans.size(); ++j) {
    ColumnBlob& b = blobs[j];
    if (b.minutes == 0) continue;
    std::vector<std::uint8_t> header;
    encode_rollups_header(header, b.minutes);
    insert.reset();
    insert.bind(1, run_row).bind(2, std::int64_t{device}).bind(3, info(plans[j].metric).name);
    insert.bind(4, static_cast<std::int64_t>(header.size() + b.bytes)).run();
    b.rowid = sqlite3_last_insert_rowid(db);
    b.pending = std::move(header);
    b.bytes += b.pending.size();
    b.prev_minute = 0;
  }
}

// The detectors' minutes of the device: a few MB for weeks, written whole.
void insert_detector_row(sqlite3* db, std::int64_t run_row, int device, const std::vector<std::uint8_t>& blob) {
  sql::Stmt insert(db, "INSERT INTO rollups (run_id, device_idx, metric, data) VALUES (?1, ?2, ?3, ?4)");
  insert.bind(1, run_row).bind(2, std::int64_t{device}).bind(3, kDetectorMinutesName).bind_blob(4, blob).run();
}

// Writes the rollups of one device: sizes, then rows, then their bytes, in
// one write transaction. False when a chunk does not decode.
bool write_device(sqlite3* db, Store& store, const RunInfo& run, int device, const std::vector<ColumnPlan>& plans) {
  std::vector<ColumnBlob> blobs(plans.size());
  DetectorMinutesEncoder detector_blob;
  DetectorMinutesBuilder detectors(run.start_mono_ns, detector_caps(plans),
                                   [&detector_blob](DetectorMinute&& m) { detector_blob.add(m); });
  const bool sized = roll_device(
      store, run, device, plans,
      [&](std::size_t j, const ColumnRollup& m) {
        ColumnBlob& b = blobs[j];
        b.add(m, info(plans[j].metric).scale);
        b.bytes += b.pending.size();
        b.pending.clear();
        ++b.minutes;
      },
      &detectors);
  if (!sized) return false;
  detectors.finish();
  sql::Transaction txn(db, sql::Transaction::Kind::Write);
  insert_rows(db, run.row_id, device, plans, blobs);
  insert_detector_row(db, run.row_id, device, detector_blob.finish());
  const bool written = roll_device(store, run, device, plans, [&](std::size_t j, const ColumnRollup& m) {
    ColumnBlob& b = blobs[j];
    b.add(m, info(plans[j].metric).scale);
    if (b.pending.size() >= kBlobPieceBytes) write_piece(db, b);
  });
  if (!written) return false;
  for (ColumnBlob& b : blobs) {
    if (b.minutes == 0) continue;
    if (!b.pending.empty()) write_piece(db, b);
    if (b.written != b.bytes) throw StoreError("the run's chunks changed while its rollups were written");
  }
  txn.commit();
  return true;
}

// Every device's rollups, or false (nothing marked done) when a chunk does
// not decode. Each device is planned before any is written.
bool write_rollups(sqlite3* db, Store& store, const RunInfo& run) {
  LoadOptions facts;
  facts.device_samples = false;
  facts.host = false;
  std::vector<std::pair<int, std::vector<ColumnPlan>>> devices;
  for (const DeviceSeries& device : store.load(run, facts).devices) {
    std::vector<ColumnPlan> plans = rolled_columns();
    if (!plan_device(store, run, device.info.index, plans)) return false;
    devices.emplace_back(device.info.index, std::move(plans));
  }
  {
    sql::Transaction txn(db, sql::Transaction::Kind::Write);
    sql::Stmt clear(db, "DELETE FROM rollups WHERE run_id = ?1");
    clear.bind(1, run.row_id).run();
    txn.commit();
  }
  for (const auto& [device, plans] : devices) {
    if (!write_device(db, store, run, device, plans)) return false;
  }
  sql::Transaction txn(db, sql::Transaction::Kind::Write);
  sql::Stmt done(db, "INSERT OR REPLACE INTO rollup_runs (run_id, format) VALUES (?1, ?2)");
  done.bind(1, run.row_id).bind(2, std::int64_t{kRollupFormat}).run();
  txn.commit();
  return true;
}

}  // namespace

bool build_rollups(const std::filesystem::path& store_path, const RunInfo& asked) {
  auto store = Store::open(store_path, false);  // migrates: the tables exist from here on
  const std::optional<RunInfo> run = find_run(*store, asked);
  if (!run) throw StoreError(fmt::format("run {} is not in the store {}", asked.id, store_path.string()));
  if (run->status == RunStatus::Recording) return false;
  const sql::Db db = open_db(store_path, true);
  if (has_rollups_in(db.get(), run->row_id)) return true;
  return write_rollups(db.get(), *store, *run);
}

bool rebuild_rollups(const std::filesystem::path& store_path, const RunInfo& asked) {
  auto store = Store::open(store_path, false);
  const std::optional<RunInfo> run = find_run(*store, asked);
  if (!run) throw StoreError(fmt::format("run {} is not in the store {}", asked.id, store_path.string()));
  if (run->status == RunStatus::Recording) return false;
  const sql::Db db = open_db(store_path, true);
  if (has_rollup_tables(db.get())) {
    sql::Transaction txn(db.get(), sql::Transaction::Kind::Write);
    sql::Stmt undo(db.get(), "DELETE FROM rollup_runs WHERE run_id = ?1");
    undo.bind(1, run->row_id).run();
    txn.commit();
  }
  return write_rollups(db.get(), *store, *run);
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

namespace {

// Each blob of one device's rollups (its name and bytes) to `fn`, in one read
// transaction, until `fn` says false. False when the run has none, the device
// no blob (a damaged file), or `fn` refused one: the chunks are then read.
bool for_each_device_blob(const std::filesystem::path& path, std::int64_t run_row, int index,
                          const std::function<bool(const std::string&, std::span<const std::uint8_t>)>& fn) {
  const sql::Db db = open_db(path, false);
  sql::Transaction txn(db.get(), sql::Transaction::Kind::Read);
  if (!has_rollups_in(db.get(), run_row)) return false;
  sql::Stmt q(db.get(), "SELECT metric, data FROM rollups WHERE run_id = ?1 AND device_idx = ?2");
  q.bind(1, run_row).bind(2, std::int64_t{index});
  bool any = false;
  while (q.step()) {
    any = true;
    if (!fn(q.text(0), q.blob(1))) return false;
  }
  txn.commit();
  return any;
}

}  // namespace

std::optional<DeviceRollupTotals> StoredRollups::totals(int index) const {
  try {
    DeviceRollupTotals out;
    out.merged.resize(kDeviceMetricCount);
    const bool read = for_each_device_blob(store_path_, run_.row_id, index, [&](const std::string& name, auto blob) {
      if (name == kDetectorMinutesName) {
        out.detectors = decode_detector_minutes(blob);  // undecodable: the detectors read the samples
        return true;
      }
      const int m = metric_index_by_name(kDeviceMetrics, name);
      if (m < 0) return true;  // a metric this build does not know
      const bool memory = static_cast<DeviceMetric>(m) == DeviceMetric::MemUsedBytes;
      RollupAccumulator merged;
      const bool decoded = for_each_rollup_minute(blob, kDeviceMetrics[static_cast<std::size_t>(m)].scale,
                                                  [&](ColumnRollup&& minute) {
                                                    if (memory) out.memory.push_back(minute);
                                                    merged.add(std::move(minute));
                                                  });
      if (decoded && !merged.empty()) out.merged[static_cast<std::size_t>(m)] = merged.result();
      return decoded;
    });
    if (!read) return std::nullopt;
    return out;
  } catch (const StoreError&) {
    return std::nullopt;  // the chunks are the data; rollups only make reading faster
  }
}

std::optional<DeviceRollups> StoredRollups::rollups(int index) const {
  try {
    DeviceRollups out;
    out.device_index = index;
    out.metrics.resize(kDeviceMetricCount);
    const bool read = for_each_device_blob(store_path_, run_.row_id, index, [&](const std::string& name, auto blob) {
      if (name == kDetectorMinutesName) {
        out.detectors = decode_detector_minutes(blob);
        return true;
      }
      const int m = metric_index_by_name(kDeviceMetrics, name);
      if (m < 0) return true;
      auto minutes = decode_rollups(blob, kDeviceMetrics[static_cast<std::size_t>(m)].scale);
      if (minutes) out.metrics[static_cast<std::size_t>(m)] = std::move(*minutes);
      return minutes.has_value();
    });
    if (!read) return std::nullopt;
    return out;
  } catch (const StoreError&) {
    return std::nullopt;  // the chunks are the data; rollups only make reading faster
  }
}

}  // namespace gpuwatch
