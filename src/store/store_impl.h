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

// Identity of this machine, to tell whether a recorder process still lives.
struct HostIdentity {
  std::string host;     // gethostname()
  std::string boot_id;  // /proc/sys/kernel/random/boot_id

  static HostIdentity current();
};

// A recorder on another host cannot be asked; its heartbeat must be this
// fresh for its run to count as recording.
inline constexpr std::int64_t kRemoteHeartbeatTimeoutNs = 10'000'000'000;

// Whether the recorder of `run` may still be writing it: same host and boot
// and /proc/<pid> exists; on another host, a heartbeat younger than the
// timeout.
bool recorder_alive(const RunInfo& run, const HostIdentity& here, std::int64_t now_wall_ns);

struct Store::Impl {
  std::filesystem::path path;
  sql::Db db;
  bool read_only = false;
  int version = 0;
  HostIdentity here = HostIdentity::current();

  // Serialises use of the connection and its cached statements.
  std::mutex db_mutex;

  // The run being recorded; guarded by db_mutex.
  std::optional<std::int64_t> active_row;

  // What the next flush() writes. Filled by cheap, lock-and-push calls.
  struct Pending {
    std::map<int, std::vector<DeviceSample>> devices;
    std::vector<HostSample> host;
    std::map<std::pair<int, std::uint32_t>, ProcessRecord> processes;
    std::vector<Event> events;
    std::vector<std::pair<int, std::int64_t>> lost;  // device, wall ns
  };
  std::mutex buf_mutex;
  bool accepting = false;  // a run is open; guarded by buf_mutex
  Pending pending;         // guarded by buf_mutex

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
  void flush_locked();
  void write_pending(const Pending& p, std::int64_t run_row);
  void requeue(Pending&& failed);
  // store_import.cpp: a whole run's rows, to be written by write_pending.
  static Pending pending_from(const RunData& data);
  void close_run_locked(const RunInfo* finished);
  // store_compact.cpp: merges a finished run's small chunks into large ones.
  void compact_run_locked(std::int64_t run_row);

  // store_read.cpp; callers hold db_mutex.
  // SELECT ... FROM runs <tail>; `bind` fills the tail's parameters.
  std::vector<RunInfo> query_runs(std::string_view tail, const std::function<void(sql::Stmt&)>& bind = {});
  void settle_liveness(std::vector<RunInfo>& runs);
  RunData load_locked(const RunInfo& run, const LoadOptions& options);
};

}  // namespace gpuwatch
