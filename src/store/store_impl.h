// Store's private state, shared by store.cpp (opening, liveness),
// store_write.cpp (recording) and store_read.cpp (queries).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/process_identity.h"
#include "store/recorder_lock.h"
#include "store/sqlite_util.h"
#include "store/store.h"

namespace gpuwatch {

std::string_view to_db(RunStatus s);
RunStatus run_status_from_db(std::string_view s);

// The comma list of a metric table's names, in table order.
template <typename Table>
std::string metric_names(const Table& table) {
  std::string out;
  for (const auto& m : table) {
    if (!out.empty()) out += ',';
    out += m.name;
  }
  return out;
}

// Identity of this machine and process, to tell whether a recorder process
// still lives.
struct HostIdentity {
  std::string host;     // gethostname()
  std::string boot_id;  // <procfs>/sys/kernel/random/boot_id
  std::filesystem::path procfs_root = "/proc";  // set_store_procfs_root()
  ProcessIdentity self;                          // this process

  static HostIdentity current();
};

// A recorder that took no lock and cannot be asked by its pid (another
// host, or a pid that names nothing or another process here, as a
// recorder's in another PID namespace does) counts as alive while its
// heartbeat, written at least once a second, is this fresh.
inline constexpr std::int64_t kHeartbeatTimeoutNs = 10'000'000'000;

// Whether the recorder of `run` may still be writing it. Its lock decides
// when it took one and the lock could be asked (`lock` Held or Free: proof
// either way). Otherwise (runs recorded before locks, or `lock` Unknown): on
// this host and boot, alive while its pid is still the process that started
// at the stored start time (a SIGKILLed recorder's pid may have been reused)
// or its heartbeat is fresh; after a reboot, dead; on another host, alive
// while its heartbeat is fresh.
bool recorder_alive(const RunInfo& run, RecorderLock lock, const HostIdentity& here, std::int64_t now_wall_ns);

struct Store::Impl {
  std::filesystem::path path;
  sql::Db db;
  bool read_only = false;
  int version = 0;
  // False for a store of schema 1 opened read-only: its runs have no
  // recorder_start_ticks column yet.
  bool runs_have_start_ticks = true;
  // False before schema 4 (read-only): no slow_interval_s column.
  bool runs_have_slow_interval = true;
  // False before schema 5 (read-only): no job_* columns.
  bool runs_have_job = true;
  bool processes_have_gpu_use = true;
  bool processes_have_attribution = true;
  // False before schema 7 (read-only): no recorder_lock column.
  bool runs_have_lock = true;
  HostIdentity here = HostIdentity::current();

  // Serialises use of the connection and its cached statements.
  std::mutex db_mutex;

  // The run being recorded; guarded by db_mutex.
  std::optional<std::int64_t> active_row;
  // The lock that proves this process records it (recorder_lock.h), held
  // from before its row is visible until its end is stored.
  std::optional<HeldRecorderLock> run_lock;
  // A run begun while its row could not be written (a full disk): its
  // samples wait in `pending` as after a failed flush, and each flush writes
  // the row first (store_write.cpp, store_unbegun_run). Guarded by db_mutex.
  struct Unbegun {
    RunInfo run;
    std::vector<DeviceInfo> devices;
  };
  std::optional<Unbegun> unbegun;

  // What the next flush() writes. Filled by cheap, lock-and-push calls.
  struct Pending {
    std::map<int, std::vector<DeviceSample>> devices;
    std::vector<HostSample> host;
    std::map<std::pair<int, std::uint32_t>, ProcessRecord> processes;
    std::vector<Event> events;
    std::vector<std::pair<int, std::int64_t>> lost;  // device, wall ns
  };
  mutable std::mutex buf_mutex;
  bool accepting = false;  // a run is open; guarded by buf_mutex
  Pending pending;         // guarded by buf_mutex

  // What was dropped from `pending` since the last commit that succeeded,
  // to be stored as one store_gap event (store_backlog.cpp).
  struct Gap {
    std::uint64_t samples = 0;
    std::uint64_t events = 0;
    Timestamp first{};  // of the oldest sample dropped
    Timestamp last{};   // of the newest sample dropped
    std::string why;    // the write error that caused it
    [[nodiscard]] bool empty() const { return samples == 0 && events == 0; }
  };
  Gap gap;                           // guarded by buf_mutex
  StoreBacklog backlog_totals;       // dropped this run; guarded by buf_mutex

  // Statements of the once-a-second path, prepared on first use.
  std::optional<sql::Stmt> insert_sample_chunk;
  std::optional<sql::Stmt> insert_host_chunk;
  std::optional<sql::Stmt> upsert_process;
  std::optional<sql::Stmt> insert_event;
  std::optional<sql::Stmt> update_lost;
  std::optional<sql::Stmt> update_heartbeat;

  void require_writable() const;
  sql::Stmt& cached(std::optional<sql::Stmt>& slot, std::string_view sql_text);

  // store_write.cpp; callers hold db_mutex.
  // Inserts the run row (all of `run`, with a new id when it has none; the
  // version of this gpuwatch when it names none) and its devices. The caller
  // holds a write transaction.
  void insert_run(RunInfo& run, const std::vector<DeviceInfo>& devices);
  // Inserts the recorded run's row and takes its recorder lock, in the
  // caller's write transaction; the lock is kept once that commits.
  std::optional<HeldRecorderLock> insert_recorded_run(RunInfo& run, const std::vector<DeviceInfo>& devices);
  // Writes `unbegun`'s row when there is one (its own transaction); throws
  // when it still cannot be written.
  void store_unbegun_run();
  // Whether a run is being recorded, stored or not yet.
  [[nodiscard]] bool recording() const { return active_row.has_value() || unbegun.has_value(); }
  void flush_locked();
  void write_pending(const Pending& p, std::int64_t run_row);
  void requeue(Pending&& failed, std::string_view why);
  // store_backlog.cpp. Callers hold buf_mutex.
  // Drops the oldest of `pending` beyond `limit_bytes`, counting it in gap.
  void trim_pending(std::size_t limit_bytes, std::string_view why);
  // Callers hold db_mutex and a write transaction; buf_mutex is taken here.
  // Writes the gap as a store_gap event; returns what it wrote, so that the
  // caller can forget it once the transaction commits.
  Gap write_gap(std::int64_t run_row);
  void forget_gap(const Gap& written);
  // store_import.cpp: a whole run's rows, to be written by write_pending.
  static Pending pending_from(const RunData& data);
  // Flushes what fits and stores the run's end (interrupted when `finished`
  // is null); the run is closed even when that throws.
  void close_run_locked(const RunInfo* finished);
  void update_end(std::int64_t run_row, const RunInfo* finished, std::int64_t wall);
  // store_compact.cpp: merges a finished run's small chunks into large ones.
  void compact_run_locked(std::int64_t run_row);

  // store_read.cpp; callers hold db_mutex.
  // SELECT ... FROM runs <tail>; `bind` fills the tail's parameters.
  std::vector<RunInfo> query_runs(std::string_view tail, const std::function<void(sql::Stmt&)>& bind = {});
  // `locks`: each run's recorder_lock byte, when it has one.
  void settle_liveness(std::vector<RunInfo>& runs, const std::vector<std::optional<std::int64_t>>& locks);
  // The row's status and end as stored now (only those fields filled).
  std::optional<RunInfo> reread_run(std::int64_t row_id);
  // Which columns of later schema steps the runs table has.
  void find_optional_columns();
  RunData load_locked(const RunInfo& run, const LoadOptions& options);
  // load_locked's reading, within a read transaction the caller holds
  // (sample_cursor.cpp), without cutting the chunks to the asked span.
  RunData read_locked(const RunInfo& run, const LoadOptions& options);
};

}  // namespace gpuwatch
