// The run store: one SQLite file in WAL mode. The writer (record) commits at
// least once a second; readers (report, runs, status) never block it.
//
// Samples are stored in chunks, one row per series per commit, with every
// metric packed as delta-encoded fixed-point integers (see chunk_codec.h), so
// a long run stays small and fast to scan.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/environment_lookup.h"
#include "core/run.h"
#include "core/sample.h"

namespace gpuwatch {

struct Migration;  // store/schema.h

// What Store::load reads. The defaults read everything; a report over a
// 35-hour run reads one GPU and a few metrics at a time instead.
struct LoadOptions {
  std::optional<int> device;                         // only this GPU (by index)
  std::optional<std::vector<DeviceMetric>> metrics;  // only these columns; the others stay empty
  bool device_samples = true;  // false: devices' facts only, no samples at all
  bool host = true;            // host samples, processes and events
  bool host_samples = true;    // with host: false leaves the host's samples out (events and processes only)
  // With host samples: false leaves the per-core columns out, which neither
  // `report` nor `status` show (at 100 M device-samples they are 150 MB).
  bool host_cores = true;
  bool device_wall_clock = true;  // false: devices' wall_ns stay empty (not decoded)
  // Only samples at or after this time (`status` reads the last minute of a
  // long run); chunks that end before it are not read. Events are all read.
  std::optional<std::int64_t> since_mono_ns;
  std::optional<std::int64_t> until_mono_ns;  // and before this time
};

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A store file with no schema yet: a recorder is creating it, or it was left
// empty. Readers that list runs treat it as holding none.
class EmptyStoreError : public StoreError {
 public:
  using StoreError::StoreError;
};

// finish_run(): not even the run's row could be written (the file system
// refused every write from the run's start to its end): nothing of it is stored.
class RunNotStoredError : public StoreError {
 public:
  using StoreError::StoreError;
};

// What a recording store holds in memory because the file could not take it
// (disk full), and what it dropped to stay within kMaxBufferedBytes.
struct StoreBacklog {
  std::size_t buffered_bytes = 0;        // samples and events not yet written
  std::uint64_t dropped_samples = 0;     // oldest samples given up, this run
  std::uint64_t dropped_events = 0;      // oldest events given up, this run
};

// The most a recording keeps in memory while the store cannot be written.
inline constexpr std::size_t kMaxBufferedBytes = std::size_t{16} << 20;

// Default path: $GPUWATCH_STORE, else $XDG_DATA_HOME/gpuwatch/runs.db, else
// ~/.local/share/gpuwatch/runs.db, the variables read through `env`.
std::filesystem::path default_store_path(const EnvironmentLookup& env);

// The procfs root under which every store opened afterwards tells a live
// recorder from a dead one (process_alive, read_boot_id): "/proc" unless
// cli/ sets GPUWATCH_PROCFS_ROOT's value here once at start, before any
// store opens; a test sets its fake one. Every store of the process shares
// it, as they share the machine.
void set_store_procfs_root(std::filesystem::path root);

class Store {
 public:
  // Opens (creating and migrating when writable) the store. Throws StoreError.
  static std::unique_ptr<Store> open(const std::filesystem::path& path, bool read_only);
  // The same with another list of schema steps: lets tests exercise the
  // migration mechanism with versions this build does not have.
  static std::unique_ptr<Store> open(const std::filesystem::path& path, bool read_only,
                                     std::span<const Migration> migrations);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  [[nodiscard]] int schema_version() const;

  // --- writing (record) ---
  // One run at a time per Store. The writing calls are thread-safe: the
  // sampler may append() while the recorder's loop calls flush().
  //
  // Creates the run (status recording), commits it, and returns its public
  // id. Fills in what the caller left empty: id, row_id, status, start
  // times (now), host, recorder pid, start time and boot id (this process),
  // version. When the file system refuses the row (a full disk), the run
  // is open all the same, with its id and no row_id: the row waits with the
  // samples for the first flush that can write it (issue 25: the command
  // runs whatever the disk).
  std::string begin_run(RunInfo& run, const std::vector<DeviceInfo>& devices);
  // append, note_process, add_event and mark_lost only buffer in memory:
  // nothing reaches the file before the next flush().
  void append(const DeviceSample& sample);
  void append(const HostSample& sample);
  void note_process(const GpuProcess& process, const std::string& name, Timestamp seen);
  void add_event(const Event& event);
  void mark_lost(int device_index, Timestamp when);
  // Writes buffered samples as chunks (one row per series), processes,
  // events and the heartbeat in one transaction. Call at least once a
  // second. On failure the buffers are kept for the next flush.
  void flush();
  // While flushes fail (disk full), the buffers grow up to
  // kMaxBufferedBytes; past that the oldest samples and events are dropped,
  // counted, and written as one "store_gap" event by the next flush that
  // succeeds. Thread-safe.
  [[nodiscard]] StoreBacklog backlog() const;
  // Flushes, then records end, exit, jitter, end_reason and status (a
  // status still Recording is stored as Finished). When the samples cannot
  // be written they are dropped (counted in a store_gap event) so that the
  // run's end and exit code, much smaller, still may be; throws StoreError
  // when not even those fit. Either way the run is closed: nothing more is
  // buffered. Destroying the Store with a run still open flushes it and
  // marks it interrupted.
  void finish_run(const RunInfo& run);

  // Writes a whole finished run that was not recorded here (an imported
  // file): the run row, its devices, samples as chunks, processes and
  // events, in one transaction, so a failure leaves nothing behind. Fills in
  // data.run's id (new unless it names an unused one), row_id and version
  // when empty; a status of Recording is stored as Finished. Returns the id.
  std::string import_run(RunData& data);
  // The same a part at a time, for a file too large to hold (import/): the
  // run row and its devices now, the samples as they come, all in one
  // transaction that only RunImport::commit() makes visible. Fills in
  // run.id and row_id.
  [[nodiscard]] std::unique_ptr<class RunImport> begin_import(RunInfo& run, const std::vector<DeviceInfo>& devices);

  // --- reading ---
  // Runs that claim to be recording but whose recorder is gone are reported
  // as Interrupted (and stored so when the store is writable).
  // Oldest first.
  [[nodiscard]] std::vector<RunInfo> list_runs();
  // RUN, tried in this order: exact id, "last" (latest run), a run name
  // (latest run of that name), a unique id prefix. Throws StoreError when
  // nothing or several runs match.
  [[nodiscard]] RunInfo resolve(const std::string& run_ref);
  // The run's samples as columns. Chunks that fail to decode are skipped
  // and reported as events of kind "store_corrupt_chunk".
  [[nodiscard]] RunData load(const RunInfo& run, const LoadOptions& options = {});
  // One device's chunks of `run` in the order load() reads them, each decoded
  // alone and handed to `visit`: its times and every metric recorded (NaN
  // where absent; a metric the run never recorded stays empty; no wall
  // clock). For passes over a run too long to load whole (the rollups'
  // build): one chunk's rows in memory at a time, within one read
  // transaction. Returns false at the first chunk that does not decode or
  // disagrees with its row (where load() notes a store_corrupt_chunk event).
  bool visit_device_chunks(const RunInfo& run, int device_index,
                           const std::function<void(const DeviceSeries&)>& visit);

 private:
  friend class RunImport;
  friend class SampleCursor;  // store/sample_cursor.h: reads on this connection
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  static void open_and_migrate(Impl& impl, std::span<const Migration> migrations);
  std::unique_ptr<Impl> impl_;
};

// A run being imported (Store::begin_import); destroyed without commit(),
// it leaves nothing behind. The Store must outlive it.
class RunImport {
 public:
  ~RunImport();
  RunImport(const RunImport&) = delete;
  RunImport& operator=(const RunImport&) = delete;
  // The rows of each series (a GPU, the host) in time order; series may
  // interleave. A series is written a chunk of kImportChunkRows at a time,
  // so memory holds at most one chunk per series.
  void append(const DeviceSample& sample);
  void append(const HostSample& sample);
  void add_process(const ProcessRecord& process);
  void add_event(const Event& event);
  // Writes what is left and commits; returns the run's id.
  std::string commit();
  // After commit(): the run's per-minute rollups (build_rollups_quietly).
  void build_rollups() noexcept;

  static constexpr std::size_t kImportChunkRows = 8192;

 private:
  friend class Store;
  struct State;
  explicit RunImport(std::unique_ptr<State> state);
  void flush_device(int device);
  void flush_host();
  std::unique_ptr<State> state_;
};

}  // namespace gpuwatch
