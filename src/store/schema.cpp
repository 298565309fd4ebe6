#include "store/schema.h"

#include <array>

#include <fmt/format.h>

#include "store/sqlite_util.h"
#include "store/store.h"

namespace gpuwatch {
namespace {

// Times are integer nanoseconds (wall: Unix epoch; mono: CLOCK_MONOTONIC of
// the recording host). Sample values live only in the chunk blobs; the
// *_columns texts name the blob's value columns in order so that a reader
// maps them by metric name, not by enum position.
constexpr std::string_view kSchemaV1 = R"sql(
PRAGMA application_id = 1735423351;  -- 'gpuw': lets `file` and tools recognise the store
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,          -- 12 lowercase hex characters
  name TEXT NOT NULL DEFAULT '',
  command TEXT NOT NULL DEFAULT '[]',      -- argv as a JSON array of strings
  cwd TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  start_wall_ns INTEGER NOT NULL,
  start_mono_ns INTEGER NOT NULL,
  end_wall_ns INTEGER,
  exit_code INTEGER,
  exit_signal INTEGER,
  interval_s REAL NOT NULL,
  version TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('recording', 'finished', 'interrupted')),
  recorder_pid INTEGER NOT NULL,
  recorder_boot_id TEXT NOT NULL DEFAULT '',
  attached_pid INTEGER,
  end_reason TEXT NOT NULL DEFAULT '',
  heartbeat_wall_ns INTEGER NOT NULL,      -- last commit by the recorder
  host_columns TEXT NOT NULL DEFAULT '',   -- host chunk columns before the per-core ones
  jitter_ticks INTEGER NOT NULL DEFAULT 0,
  jitter_missed_deadlines INTEGER NOT NULL DEFAULT 0,
  jitter_mean_late_ns REAL NOT NULL DEFAULT 0,
  jitter_p99_late_ns REAL NOT NULL DEFAULT 0,
  jitter_max_late_ns REAL NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_start ON runs (start_wall_ns);
CREATE INDEX runs_by_name ON runs (name, start_wall_ns);
CREATE TABLE devices (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  backend TEXT NOT NULL DEFAULT '',
  vendor TEXT NOT NULL DEFAULT '',
  name TEXT NOT NULL DEFAULT '',
  uuid TEXT NOT NULL DEFAULT '',
  pci_bus_id TEXT NOT NULL DEFAULT '',
  driver_version TEXT NOT NULL DEFAULT '',
  supported_metrics TEXT NOT NULL DEFAULT '',  -- comma list of metric names
  static_values TEXT NOT NULL DEFAULT '',      -- comma list of name=value
  chunk_columns TEXT NOT NULL DEFAULT '',      -- sample chunk columns, in order
  lost_at_wall_ns INTEGER,
  PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
CREATE TABLE sample_chunks (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  device_idx INTEGER NOT NULL,
  first_mono_ns INTEGER NOT NULL,
  last_mono_ns INTEGER NOT NULL,
  count INTEGER NOT NULL,
  data BLOB NOT NULL                        -- see chunk_codec.h
);
CREATE INDEX sample_chunks_by_series ON sample_chunks (run_id, device_idx, first_mono_ns);
CREATE TABLE host_chunks (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  first_mono_ns INTEGER NOT NULL,
  last_mono_ns INTEGER NOT NULL,
  count INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX host_chunks_by_run ON host_chunks (run_id, first_mono_ns);
CREATE TABLE processes (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  device_idx INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  first_seen_wall_ns INTEGER NOT NULL,
  last_seen_wall_ns INTEGER NOT NULL,
  max_used_memory_bytes INTEGER,
  PRIMARY KEY (run_id, device_idx, pid)
) WITHOUT ROWID;
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  wall_ns INTEGER NOT NULL,
  mono_ns INTEGER NOT NULL,
  device_idx INTEGER,
  kind TEXT NOT NULL,
  message TEXT NOT NULL DEFAULT ''
);
CREATE INDEX events_by_run ON events (run_id, mono_ns);
)sql";

// Per-minute rollups of finished runs (core/rollup.h, store/rollup_codec.h):
// one blob per device and metric holding every minute. A run is listed in
// rollup_runs once all of its blobs are written, in the same transaction; a
// run that is not (recording, interrupted, recorded before this step) is read
// from its chunks. Readers that predate the step ignore both tables.
constexpr std::string_view kSchemaRollups = R"sql(
CREATE TABLE rollups (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  device_idx INTEGER NOT NULL,
  metric TEXT NOT NULL,                     -- the metric's catalogue name
  data BLOB NOT NULL,
  PRIMARY KEY (run_id, device_idx, metric)
);
CREATE TABLE rollup_runs (
  run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  format INTEGER NOT NULL                   -- kRollupFormat of the blobs
);
)sql";

// The recorder's start time (clock ticks since boot): with the pid and boot
// id it tells a live recorder from a process that reused a dead one's pid.
// NULL for runs recorded before. Readers of this build select NULL in its
// place when the column is missing, so the step is readable by them.
constexpr std::string_view kRecorderStartTicks = R"sql(
ALTER TABLE runs ADD COLUMN recorder_start_ticks INTEGER;
)sql";

// How often the run's slow metrics were read (RunInfo::slow_interval_s);
// NULL for runs recorded before. Readable by this build's readers as step 3.
constexpr std::string_view kSlowInterval = R"sql(
ALTER TABLE runs ADD COLUMN slow_interval_s REAL;
)sql";

// The distributed job the run belongs to (RunInfo::job): its id, where the
// id came from, and the recorder's ranks. NULL for runs recorded before and
// for runs on their own. Readable by this build's readers as step 3. No
// index: runs are listed whole and filtered in memory (a store holds
// thousands of runs, not millions), and every run inserted would write an
// index page too, one more than a recorder's first commit needs on a
// nearly full disk.
constexpr std::string_view kJob = R"sql(
ALTER TABLE runs ADD COLUMN job_id TEXT;
ALTER TABLE runs ADD COLUMN job_source TEXT;
ALTER TABLE runs ADD COLUMN job_rank INTEGER;
ALTER TABLE runs ADD COLUMN job_local_rank INTEGER;
ALTER TABLE runs ADD COLUMN job_world_size INTEGER;
ALTER TABLE runs ADD COLUMN job_node_rank INTEGER;
ALTER TABLE runs ADD COLUMN job_node_count INTEGER;
)sql";

// Each process's GPU use (ProcessRecord): the largest value and the sum and
// count the mean comes from. NULL for processes recorded before. Readable by
// this build's readers as step 3.
constexpr std::string_view kProcessGpuUse = R"sql(
ALTER TABLE processes ADD COLUMN max_gpu_percent REAL;
ALTER TABLE processes ADD COLUMN gpu_percent_sum REAL;
ALTER TABLE processes ADD COLUMN gpu_percent_reads INTEGER;
)sql";

// The byte of the store file the recorder holds locked while it lives
// (store/recorder_lock.h): with it, a run is recording exactly while the
// lock is held, whatever the recorder's PID namespace. NULL for runs
// recorded before, and where the file system offers no such lock; those are
// told by pid and heartbeat. Readable by this build's readers as step 3.
constexpr std::string_view kRecorderLock = R"sql(
ALTER TABLE runs ADD COLUMN recorder_lock INTEGER;
)sql";

// Who owns each process (its Slurm job, container, pod or unit;
// store/attribution_column.h). NULL for processes recorded before, and where
// no owner was found. Readable by this build's readers as step 7.
constexpr std::string_view kProcessAttribution = R"sql(
ALTER TABLE processes ADD COLUMN attribution TEXT;
)sql";

constexpr std::array kMigrations{
    Migration{1, kSchemaV1, false},
    Migration{2, kSchemaRollups, true},
    Migration{3, kRecorderStartTicks, true},
    Migration{4, kSlowInterval, true},
    Migration{5, kJob, true},
    Migration{6, kProcessGpuUse, true},
    Migration{7, kRecorderLock, true},
    Migration{8, kProcessAttribution, true},
};

bool has_table(sqlite3* db, std::string_view name) {
  sql::Stmt q(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  q.bind(1, name);
  return q.step();
}

}  // namespace

bool has_column(sqlite3* db, std::string_view table, std::string_view column) {
  sql::Stmt q(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2");
  q.bind(1, table).bind(2, column);
  return q.step();
}

std::span<const Migration> schema_migrations() { return kMigrations; }

int current_schema_version() { return kMigrations.back().version; }

int read_schema_version(sqlite3* db) {
  if (!has_table(db, "meta")) {
    sql::Stmt any(db, "SELECT count(*) FROM sqlite_master");
    any.step();
    if (any.int64(0) != 0) throw StoreError("the file is an SQLite database but not a gpuwatch run store");
    return 0;
  }
  sql::Stmt q(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!q.step()) throw StoreError("the run store has no schema version; it is damaged or not a gpuwatch store");
  const std::string text = q.text(0);
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || v > 100000) throw StoreError(fmt::format("bad schema version '{}' in the run store", text));
    v = v * 10 + (c - '0');
  }
  if (text.empty()) throw StoreError("empty schema version in the run store");
  return v;
}

int migrate(sqlite3* db, std::span<const Migration> steps, std::string_view path) {
  const int target = steps.empty() ? 0 : steps.back().version;
  sql::Transaction txn(db, sql::Transaction::Kind::Write);
  const int stored = read_schema_version(db);
  if (stored > target) {
    throw StoreError(fmt::format(
        "the run store {} has schema version {}, written by a newer gpuwatch; this one knows up to "
        "version {}. Upgrade gpuwatch, or use another store (--store / GPUWATCH_STORE)",
        path, stored, target));
  }
  if (stored == target) return stored;  // the transaction rolls back: nothing changed
  int expected = 1;
  for (const Migration& step : steps) {
    if (step.version != expected++) throw StoreError("internal error: migration steps are not numbered 1, 2, ...");
    if (step.version <= stored) continue;
    try {
      sql::exec(db, step.sql);
    } catch (const StoreError& e) {
      throw StoreError(fmt::format("upgrading the run store {} to schema version {} failed: {}", path,
                                   step.version, e.what()));
    }
  }
  sql::Stmt set(db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)");
  set.bind(1, fmt::format("{}", target)).run();
  txn.commit();
  return target;
}

void check_readable(int stored, std::span<const Migration> steps, std::string_view path) {
  const int known = steps.empty() ? 0 : steps.back().version;
  if (stored > known) {
    throw StoreError(fmt::format(
        "the run store {} has schema version {}, written by a newer gpuwatch; this one reads up to "
        "version {}. Upgrade gpuwatch",
        path, stored, known));
  }
  if (stored == 0) {
    throw EmptyStoreError(fmt::format("the run store {} is empty; record a run first", path));
  }
  for (const Migration& step : steps) {
    if (step.version > stored && !step.old_readable) {
      throw StoreError(fmt::format(
          "the run store {} has schema version {}, older than this gpuwatch's {}; run any write "
          "command (e.g. `gpuwatch record`) once to upgrade it",
          path, stored, known));
    }
  }
}

}  // namespace gpuwatch
