// The run store: one SQLite file in WAL mode. The writer (record) commits at
// least once a second; readers (report, runs, status) never block it.
//
// Samples are stored in chunks, one row per series per commit, with every
// metric packed as delta-encoded fixed-point integers (see chunk_codec.h), so
// a long run stays small and fast to scan.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

struct Migration;  // store/schema.h

enum class RunStatus { Recording, Finished, Interrupted };
std::string_view to_string(RunStatus s);

struct RunInfo {
  std::int64_t row_id = 0;          // internal key
  std::string id;                   // public id: 12 lowercase hex characters
  std::string name;
  std::vector<std::string> command; // argv; empty for --pid / no command
  std::string cwd;
  std::string host;
  std::int64_t start_wall_ns = 0;
  std::int64_t start_mono_ns = 0;
  std::optional<std::int64_t> end_wall_ns;
  std::optional<int> exit_code;
  std::optional<int> exit_signal;
  double interval_s = 0.5;
  // How often slow metrics (temperatures, clocks) were read: the sampler's
  // max(interval, 1 s), or a bench's own; 0 where not stored (runs recorded
  // before schema 4, imported files).
  double slow_interval_s = 0;
  // slow_interval_s, or the sampler's rule where it is unknown.
  [[nodiscard]] double slow_interval_or_default_s() const {
    return slow_interval_s > 0 ? slow_interval_s : std::max(interval_s, 1.0);
  }
  std::string version;
  RunStatus status = RunStatus::Recording;
  std::int64_t recorder_pid = 0;
  std::string recorder_boot_id;     // with the pid, tells whether the recorder still lives
  // The recorder's start time (clock ticks since boot, /proc/PID/stat field
  // 22): tells the recorder from a process that got its pid after it died.
  std::optional<std::uint64_t> recorder_start_ticks;
  std::optional<std::uint32_t> attached_pid;  // record --pid
  std::string end_reason;           // "exited", "signal", "interrupted", "stopped"
  JitterStats jitter;
  // Wall time of the recorder's last commit (set by the store): how fresh a
  // recording run's data is; for an interrupted run, about when it died.
  std::int64_t heartbeat_wall_ns = 0;
};

struct ProcessRecord {
  int device_index = 0;
  std::uint32_t pid = 0;
  std::string name;
  std::int64_t first_seen_wall_ns = 0;
  std::int64_t last_seen_wall_ns = 0;
  std::optional<std::uint64_t> max_used_memory_bytes;
};

// Column-oriented view of one device's samples, for analysis.
struct DeviceSeries {
  DeviceInfo info;
  std::vector<std::int64_t> mono_ns;
  std::vector<std::int64_t> wall_ns;
  // values[metric][i]; NaN where absent.
  std::vector<std::vector<double>> values;  // kDeviceMetricCount columns
  std::optional<std::int64_t> lost_at_wall_ns;
};

struct HostSeries {
  std::vector<std::int64_t> mono_ns;
  std::vector<std::int64_t> wall_ns;
  std::vector<std::vector<double>> values;      // kHostMetricCount columns
  std::vector<std::vector<double>> core_percent;  // [core][i]
};

struct RunData {
  RunInfo run;
  std::vector<DeviceSeries> devices;
  HostSeries host;
  std::vector<ProcessRecord> processes;
  std::vector<Event> events;
};

// What Store::load reads. The defaults read everything; a report over a
// 35-hour run reads one GPU and a few metrics at a time instead.
struct LoadOptions {
  std::optional<int> device;                         // only this GPU (by index)
  std::optional<std::vector<DeviceMetric>> metrics;  // only these columns; the others stay empty
  bool device_samples = true;  // false: devices' facts only, no samples at all
  bool host = true;            // host samples, processes and events
  // Only samples at or after this time (`status` reads the last minute of a
  // long run); chunks that end before it are not read. Events are all read.
  std::optional<std::int64_t> since_mono_ns;
  std::optional<std::int64_t> until_mono_ns;  // and before this time
};

// One row of a series back as a sample (store/series.cpp).
DeviceSample device_sample_at(const DeviceSeries& series, std::size_t i);
HostSample host_sample_at(const HostSeries& series, std::size_t i);
// Appends a sample as a row of its series: the device series with the
// sample's index (a sample of a device `data` does not list is dropped), or
// the host series. Series must have their full set of columns.
void append_sample(RunData& data, const DeviceSample& sample);
void append_sample(RunData& data, const HostSample& sample);
// Removes the samples before `mono_ns` from every series (events stay).
void drop_samples_before(RunData& data, std::int64_t mono_ns);
// Removes the samples after `mono_ns`.
void drop_samples_after(RunData& data, std::int64_t mono_ns);

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
// ~/.local/share/gpuwatch/runs.db.
std::filesystem::path default_store_path();

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
  // version.
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

 private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  static void open_and_migrate(Impl& impl, std::span<const Migration> migrations);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuwatch
