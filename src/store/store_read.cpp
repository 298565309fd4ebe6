// Queries: listing and resolving runs, and loading one as columns.
#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "store/chunk_codec.h"
#include "store/chunk_columns.h"
#include "store/attribution_column.h"
#include "store/command_json.h"
#include "store/recorder_lock.h"
#include "store/schema.h"
#include "store/store_impl.h"
#include "store/store_read.h"

namespace gpuwatch {
namespace {

constexpr std::string_view kRunColumns = R"sql(
  SELECT id, public_id, name, command, cwd, host, start_wall_ns, start_mono_ns, end_wall_ns, exit_code,
         exit_signal, interval_s, version, status, recorder_pid, recorder_boot_id, attached_pid,
         end_reason, heartbeat_wall_ns, jitter_ticks, jitter_missed_deadlines, jitter_mean_late_ns,
         jitter_p99_late_ns, jitter_max_late_ns, )sql";
// Columns later schema steps added; a reader of an older store selects NULL
// in their place.
constexpr std::string_view kOptionalRunColumns[] = {
    "recorder_start_ticks", "slow_interval_s", "job_id",         "job_source",     "job_rank",
    "job_local_rank",       "job_world_size",  "job_node_rank", "job_node_count", "recorder_lock"};
constexpr int kFirstJobColumn = 26;
constexpr int kRecorderLockColumn = 33;

std::optional<int> opt_int(const sql::Stmt& q, int c) {
  if (q.is_null(c)) return std::nullopt;
  return static_cast<int>(q.int64(c));
}

RunInfo run_from_row(const sql::Stmt& q) {
  RunInfo r;
  r.row_id = q.int64(0);
  r.id = q.text(1);
  r.name = q.text(2);
  const std::string command = q.text(3);
  // A damaged command column is still worth showing as it is.
  r.command = decode_argv_json(command).value_or(std::vector<std::string>{command});
  r.cwd = q.text(4);
  r.host = q.text(5);
  r.start_wall_ns = q.int64(6);
  r.start_mono_ns = q.int64(7);
  r.end_wall_ns = q.opt_int64(8);
  r.exit_code = opt_int(q, 9);
  r.exit_signal = opt_int(q, 10);
  r.interval_s = q.real(11);
  r.version = q.text(12);
  r.status = run_status_from_db(q.text(13));
  r.recorder_pid = q.int64(14);
  r.recorder_boot_id = q.text(15);
  if (!q.is_null(16)) r.attached_pid = static_cast<std::uint32_t>(q.int64(16));
  r.end_reason = q.text(17);
  r.heartbeat_wall_ns = q.int64(18);
  r.jitter.ticks = q.int64(19);
  r.jitter.missed_deadlines = q.int64(20);
  r.jitter.mean_late_ns = q.real(21);
  r.jitter.p99_late_ns = q.real(22);
  r.jitter.max_late_ns = q.real(23);
  if (const auto ticks = q.opt_int64(24); ticks && *ticks >= 0) r.recorder_start_ticks = static_cast<std::uint64_t>(*ticks);
  if (!q.is_null(25)) {
    // Anything but a plausible period (a damaged file) counts as unknown.
    const double slow = q.real(25);
    if (slow >= r.interval_s && slow <= 86400) r.slow_interval_s = slow;
  }
  constexpr int j = kFirstJobColumn;
  if (!q.is_null(j)) {
    r.job.id = q.text(j);
    if (!q.is_null(j + 1)) r.job.source = q.text(j + 1);
  }
  r.job.rank = opt_int(q, j + 2);
  r.job.local_rank = opt_int(q, j + 3);
  r.job.world_size = opt_int(q, j + 4);
  r.job.node_rank = opt_int(q, j + 5);
  r.job.node_count = opt_int(q, j + 6);
  return r;
}

void parse_device_lists(DeviceInfo& d, std::string_view supported, std::string_view statics) {
  for (auto name : split_commas(supported)) {
    if (int m = metric_index_by_name(kDeviceMetrics, name); m >= 0) d.supported.push_back(static_cast<DeviceMetric>(m));
  }
  for (auto item : split_commas(statics)) {
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    const int m = metric_index_by_name(kDeviceMetrics, item.substr(0, eq));
    double v = 0;
    const auto num = item.substr(eq + 1);
    const auto res = std::from_chars(num.data(), num.data() + num.size(), v);
    if (m >= 0 && res.ec == std::errc{}) d.static_values.set(static_cast<DeviceMetric>(m), v);
  }
}

// Appends the decoded rows of `c` to time and value columns; `source` maps
// each destination column to a chunk column (-1: absent, kNotAsked).
void append_columns(const Chunk& c, const std::vector<int>& source, const auto& table,
                    std::vector<std::int64_t>& mono, std::vector<std::int64_t>& wall,
                    std::vector<std::vector<double>>& values) {
  mono.insert(mono.end(), c.mono_ns.begin(), c.mono_ns.end());
  wall.insert(wall.end(), c.wall_ns.begin(), c.wall_ns.end());
  for (std::size_t m = 0; m < values.size(); ++m) {
    auto& dst = values[m];
    const int j = source[m];
    if (j == kNotAsked) continue;
    if (j < 0 || static_cast<std::size_t>(j) >= c.columns.size()) {
      dst.insert(dst.end(), c.rows(), std::nan(""));
      continue;
    }
    const double scale = table[m].scale;
    for (const auto& v : c.columns[static_cast<std::size_t>(j)]) dst.push_back(from_fixed(v, scale));
  }
}

}  // namespace

std::vector<RunInfo> Store::Impl::query_runs(std::string_view tail, const std::function<void(sql::Stmt&)>& bind) {
  std::string select(kRunColumns);
  const bool j = runs_have_job;
  const bool present[] = {runs_have_start_ticks, runs_have_slow_interval, j, j, j, j, j, j, j, runs_have_lock};
  static_assert(std::size(present) == std::size(kOptionalRunColumns));
  for (std::size_t c = 0; c < std::size(kOptionalRunColumns); ++c) {
    select += c == 0 ? "" : ", ";
    select += present[c] ? kOptionalRunColumns[c] : "NULL";
  }
  select += " FROM runs ";
  sql::Stmt q(db.get(), select + std::string(tail));
  if (bind) bind(q);
  std::vector<RunInfo> out;
  std::vector<std::optional<std::int64_t>> locks;
  while (q.step()) {
    out.push_back(run_from_row(q));
    locks.push_back(q.opt_int64(kRecorderLockColumn));
  }
  settle_liveness(out, locks);
  return out;
}

void Store::Impl::find_optional_columns() {
  runs_have_start_ticks = has_column(db.get(), "runs", "recorder_start_ticks");
  runs_have_slow_interval = has_column(db.get(), "runs", "slow_interval_s");
  runs_have_job = has_column(db.get(), "runs", "job_id");
  processes_have_gpu_use = has_column(db.get(), "processes", "max_gpu_percent");
  processes_have_attribution = has_column(db.get(), "processes", "attribution");
  runs_have_lock = has_column(db.get(), "runs", "recorder_lock");
}

std::optional<RunInfo> Store::Impl::reread_run(std::int64_t row_id) {
  // Not through query_runs: its liveness check is what called this.
  sql::Stmt q(db.get(), "SELECT status, end_wall_ns, end_reason FROM runs WHERE id = ?");
  q.bind(1, row_id);
  if (!q.step()) return std::nullopt;
  RunInfo r;
  r.status = run_status_from_db(q.text(0));
  r.end_wall_ns = q.opt_int64(1);
  r.end_reason = q.text(2);
  return r;
}

void Store::Impl::settle_liveness(std::vector<RunInfo>& runs, const std::vector<std::optional<std::int64_t>>& locks) {
  const std::int64_t wall = now().wall_ns;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    RunInfo& r = runs[i];
    if (r.status != RunStatus::Recording || r.row_id == active_row) continue;
    const RecorderLock lock = locks[i] ? probe_recorder_lock(path, *locks[i]) : RecorderLock::Unknown;
    if (recorder_alive(r, lock, here, wall)) continue;
    if (lock == RecorderLock::Free) {
      // A recorder gives its lock back once the run's end is stored: the
      // row read before that may be stale rather than the recorder dead.
      if (const auto now_stored = reread_run(r.row_id); now_stored && now_stored->status != RunStatus::Recording) {
        r.status = now_stored->status;
        r.end_wall_ns = now_stored->end_wall_ns;
        r.end_reason = now_stored->end_reason;
        continue;
      }
    }
    r.status = RunStatus::Interrupted;
    if (r.end_reason.empty()) r.end_reason = "interrupted";
    // The last commit is the best estimate of when the recorder died.
    if (!r.end_wall_ns) r.end_wall_ns = r.heartbeat_wall_ns;
    if (read_only) continue;
    try {
      // Only a recorder proven dead gets here. Guarded by the heartbeat too,
      // so that a recorder that committed since we read the row is not
      // overwritten.
      sql::Stmt st(db.get(), R"sql(
        UPDATE runs SET status = 'interrupted', end_reason = ?3, end_wall_ns = ?4
        WHERE id = ?1 AND status = 'recording' AND heartbeat_wall_ns = ?2)sql");
      st.bind(1, r.row_id).bind(2, r.heartbeat_wall_ns).bind(3, r.end_reason).bind(4, r.end_wall_ns).run();
    } catch (const StoreError&) {
      // Persisting is a courtesy; the status is recomputed on every read.
    }
  }
}

std::vector<RunInfo> Store::list_runs() {
  std::lock_guard lock(impl_->db_mutex);
  return impl_->query_runs("ORDER BY start_wall_ns, id");
}

RunInfo Store::resolve(const std::string& ref) {
  std::lock_guard lock(impl_->db_mutex);
  if (ref.empty()) throw StoreError("empty run reference");
  auto by_text = [&ref](sql::Stmt& q) { q.bind(1, ref); };
  if (auto r = impl_->query_runs("WHERE public_id = ?", by_text); !r.empty()) return r.front();
  if (ref == "last") {
    auto r = impl_->query_runs("ORDER BY start_wall_ns DESC, id DESC LIMIT 1");
    if (r.empty()) throw StoreError(fmt::format("no runs in the store {} yet", impl_->path.string()));
    return r.front();
  }
  if (auto r = impl_->query_runs("WHERE name = ? ORDER BY start_wall_ns DESC, id DESC LIMIT 1", by_text);
      !r.empty()) {
    return r.front();
  }
  const bool hex = ref.size() <= 12 && std::all_of(ref.begin(), ref.end(), [](char c) {
                     return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                   });
  if (hex) {
    // Hex digits are not GLOB metacharacters, so the reference is a literal prefix.
    const std::string pattern = ref + "*";
    constexpr std::size_t kShown = 10;
    auto r = impl_->query_runs(fmt::format("WHERE public_id GLOB ? ORDER BY start_wall_ns, id LIMIT {}", kShown + 1),
                               [&pattern](sql::Stmt& q) { q.bind(1, pattern); });
    if (r.size() == 1) return r.front();
    if (r.size() > 1) {
      std::string list;
      for (std::size_t i = 0; i < std::min(r.size(), kShown); ++i) {
        list += fmt::format("\n  {}{}", r[i].id, r[i].name.empty() ? "" : fmt::format(" ({})", r[i].name));
      }
      if (r.size() > kShown) list += "\n  ...";
      throw StoreError(fmt::format("run id prefix '{}' is ambiguous; it matches:{}", ref, list));
    }
  }
  throw StoreError(fmt::format(
      "no run matches '{}' (expected a run id, a unique prefix of one, a run name, 'last', or a file "
      "to import; `gpuwatch runs` lists the stored runs)",
      ref));
}

RunData Store::load(const RunInfo& run, const LoadOptions& options) {
  std::lock_guard lock(impl_->db_mutex);
  std::vector<RunInfo> found;
  if (run.row_id != 0) {
    found = impl_->query_runs("WHERE id = ?", [&run](sql::Stmt& q) { q.bind(1, run.row_id); });
  } else {
    found = impl_->query_runs("WHERE public_id = ?", [&run](sql::Stmt& q) { q.bind(1, run.id); });
  }
  if (found.empty()) throw StoreError(fmt::format("run {} is not in the store {}", run.id, impl_->path.string()));
  return impl_->load_locked(found.front(), options);
}

namespace {

// Chunks are read whole; the rows outside the asked span go.
void trim_to_span(RunData& data, const LoadOptions& options) {
  if (options.since_mono_ns) drop_samples_before(data, *options.since_mono_ns);
  if (options.until_mono_ns) drop_samples_after(data, *options.until_mono_ns);
}

// The asked span as bounds for the chunk queries.
std::int64_t span_since(const LoadOptions& options) {
  return options.since_mono_ns.value_or(std::numeric_limits<std::int64_t>::min());
}
std::int64_t span_until(const LoadOptions& options) {
  return options.until_mono_ns.value_or(std::numeric_limits<std::int64_t>::max());
}

// The devices loaded so far: where each is in RunData::devices (before they
// are sorted), and for each, the chunk column each metric comes from.
struct LoadedDevices {
  std::map<int, std::size_t> position;
  std::vector<std::vector<int>> sources;
};

void add_loaded_device(RunData& data, LoadedDevices& loaded, const LoadOptions& options, DeviceInfo info,
                       std::string_view columns, std::optional<std::int64_t> lost) {
  if (options.device && info.index != *options.device) return;
  loaded.position[info.index] = data.devices.size();
  DeviceSeries s;
  s.info = std::move(info);
  s.values.resize(kDeviceMetricCount);
  s.lost_at_wall_ns = lost;
  data.devices.push_back(std::move(s));
  std::vector<int> sources = column_sources(kDeviceMetrics, columns);
  for (std::size_t m = 0; m < sources.size(); ++m) {
    const bool asked = !options.metrics || std::find(options.metrics->begin(), options.metrics->end(),
                                                     static_cast<DeviceMetric>(m)) != options.metrics->end();
    if (!asked) sources[m] = kNotAsked;
  }
  loaded.sources.push_back(std::move(sources));
}

void read_devices(sqlite3* db, std::int64_t row_id, const LoadOptions& options, RunData& data,
                  LoadedDevices& loaded) {
  sql::Stmt dev(db, R"sql(
    SELECT idx, backend, vendor, name, uuid, pci_bus_id, driver_version, supported_metrics, static_values,
           chunk_columns, lost_at_wall_ns
    FROM devices WHERE run_id = ? ORDER BY idx)sql");
  dev.bind(1, row_id);
  while (dev.step()) {
    DeviceInfo d;
    d.index = static_cast<int>(dev.int64(0));
    d.backend = dev.text(1);
    d.vendor = dev.text(2);
    d.name = dev.text(3);
    d.uuid = dev.text(4);
    d.pci_bus_id = dev.text(5);
    d.driver_version = dev.text(6);
    parse_device_lists(d, dev.text(7), dev.text(8));
    add_loaded_device(data, loaded, options, std::move(d), dev.text(9), dev.opt_int64(10));
  }
}

}  // namespace

// An event in place of samples that could not be read.
void note_corrupt_chunk(RunData& data, std::int64_t first_mono, std::optional<int> device, std::string_view why) {
  const std::int64_t wall = data.run.start_wall_ns + (first_mono - data.run.start_mono_ns);
  data.events.push_back(Event{{first_mono, wall}, device, "store_corrupt_chunk",
                              fmt::format("samples from this point were unreadable and skipped: {}", why)});
}

// Decodes the chunk in columns col..col+3 of `q` (as append_device_chunk
// does); returns it when the blob decodes and agrees with its row.
std::optional<Chunk> decode_checked_chunk(const sql::Stmt& q, int col, RunData& data) {
  const std::int64_t first = q.int64(col);
  std::string why;
  auto c = decode_chunk(q.blob(col + 3), &why);
  if (c && (static_cast<std::int64_t>(c->rows()) != q.int64(col + 2) || c->rows() == 0 ||
            c->mono_ns.front() != first || c->mono_ns.back() != q.int64(col + 1))) {
    c.reset();
    why = "chunk disagrees with its row's count or time range";
  }
  if (!c) note_corrupt_chunk(data, first, std::nullopt, why);
  return c;
}

namespace {

// Sizes every whole-run column once: growing ten-million-row columns by
// doubling costs more than decoding them.
void reserve_device_rows(sqlite3* db, std::int64_t row_id, const LoadOptions& options, RunData& data,
                         const LoadedDevices& loaded) {
  if (!options.device_samples || options.since_mono_ns || options.until_mono_ns) return;
  sql::Stmt counts(db, "SELECT device_idx, SUM(count) FROM sample_chunks WHERE run_id = ?1 GROUP BY device_idx");
  counts.bind(1, row_id);
  while (counts.step()) {
    const auto it = loaded.position.find(static_cast<int>(counts.int64(0)));
    if (it == loaded.position.end()) continue;
    const auto rows = static_cast<std::size_t>(std::max<std::int64_t>(0, counts.int64(1)));
    DeviceSeries& s = data.devices[it->second];
    s.mono_ns.reserve(rows);
    if (options.device_wall_clock) s.wall_ns.reserve(rows);
    for (std::size_t m = 0; m < s.values.size(); ++m) {
      if (loaded.sources[it->second][m] != kNotAsked) s.values[m].reserve(rows);
    }
  }
}

// The device chunks that meet the asked span; a device that only its chunks
// name is added without facts.
void read_device_chunks(sqlite3* db, std::int64_t row_id, const LoadOptions& options, RunData& data,
                        LoadedDevices& loaded) {
  sql::Stmt chunks(db, options.device ? R"sql(
    SELECT device_idx, first_mono_ns, last_mono_ns, count, data FROM sample_chunks
    WHERE run_id = ?1 AND device_idx = ?2 AND last_mono_ns >= ?3 AND first_mono_ns <= ?4 ORDER BY device_idx, first_mono_ns, id)sql"
                                      : R"sql(
    SELECT device_idx, first_mono_ns, last_mono_ns, count, data FROM sample_chunks
    WHERE run_id = ?1 AND last_mono_ns >= ?3 AND first_mono_ns <= ?4 ORDER BY device_idx, first_mono_ns, id)sql");
  chunks.bind(1, row_id);
  if (options.device) chunks.bind(2, std::int64_t{*options.device});
  chunks.bind(3, span_since(options));
  chunks.bind(4, span_until(options));
  const auto corrupt = [&data](std::int64_t first_mono, std::optional<int> device, std::string_view why) {
    note_corrupt_chunk(data, first_mono, device, why);
  };
  while (options.device_samples && chunks.step()) {
    const int idx = static_cast<int>(chunks.int64(0));
    if (!loaded.position.count(idx)) {
      DeviceInfo d;
      d.index = idx;
      add_loaded_device(data, loaded, options, std::move(d), "", std::nullopt);
    }
    const std::size_t pos = loaded.position[idx];
    DeviceSeries& s = data.devices[pos];
    append_device_chunk(chunks, 1, s, loaded.sources[pos], options.device_wall_clock, corrupt);
  }
}

// A metric asked for but never recorded is NaN at every sample.
void pad_unrecorded_metrics(RunData& data, const LoadedDevices& loaded) {
  for (std::size_t pos = 0; pos < data.devices.size(); ++pos) {
    DeviceSeries& s = data.devices[pos];
    for (std::size_t m = 0; m < s.values.size(); ++m) {
      if (loaded.sources[pos][m] == -1) s.values[m].resize(s.mono_ns.size(), std::nan(""));
    }
  }
}

}  // namespace

// The host metrics' column names recorded with the run (empty: this build's order).
std::string host_column_names(sqlite3* db, std::int64_t row_id) {
  sql::Stmt host_cols(db, "SELECT host_columns FROM runs WHERE id = ?");
  host_cols.bind(1, row_id);
  return host_cols.step() ? host_cols.text(0) : std::string();
}

// Appends a host chunk: the named metrics, then one column per core.
void append_host_chunk(const Chunk& c, const std::vector<int>& host_sources, std::size_t named, HostSeries& h,
                       bool with_cores) {
  const std::size_t before = h.mono_ns.size();
  append_columns(c, host_sources, kHostMetrics, h.mono_ns, h.wall_ns, h.values);
  // Cores may come and go (hotplug): pad to a rectangle with NaN.
  const std::size_t cores = with_cores && c.columns.size() > named ? c.columns.size() - named : 0;
  if (cores > h.core_percent.size()) h.core_percent.resize(cores, std::vector<double>(before, std::nan("")));
  for (std::size_t k = 0; k < h.core_percent.size(); ++k) {
    auto& dst = h.core_percent[k];
    if (k >= cores) {
      dst.insert(dst.end(), c.rows(), std::nan(""));
      continue;
    }
    for (const auto& v : c.columns[named + k]) dst.push_back(from_fixed(v, 100));
  }
}

namespace {

void read_host(sqlite3* db, std::int64_t row_id, const LoadOptions& options, RunData& data) {
  const std::string host_names = host_column_names(db, row_id);
  const std::vector<int> host_sources = column_sources(kHostMetrics, host_names);
  const std::size_t named = host_names.empty() ? kHostMetricCount : split_commas(host_names).size();
  data.host.values.resize(kHostMetricCount);
  sql::Stmt hchunks(db, R"sql(
    SELECT first_mono_ns, last_mono_ns, count, data FROM host_chunks
    WHERE run_id = ?1 AND last_mono_ns >= ?2 AND first_mono_ns <= ?3 ORDER BY first_mono_ns, id)sql");
  hchunks.bind(1, row_id);
  // Without host samples, a span no chunk meets (every time is positive).
  hchunks.bind(2, options.host_samples ? span_since(options) : std::int64_t{1});
  hchunks.bind(3, options.host_samples ? span_until(options) : std::int64_t{0});
  while (hchunks.step()) {
    if (auto c = decode_checked_chunk(hchunks, 0, data)) {
      append_host_chunk(*c, host_sources, named, data.host, options.host_cores);
    }
  }
}

// The columns of later schema steps as NULL where an old store has none.
struct ProcessColumns {
  bool gpu_use = true;
  bool attribution = true;
};

void read_processes(sqlite3* db, std::int64_t row_id, ProcessColumns have, std::vector<ProcessRecord>& out) {
  const std::string gpu_use = have.gpu_use ? "max_gpu_percent, gpu_percent_sum, gpu_percent_reads" : "NULL, NULL, NULL";
  const std::string attribution = have.attribution ? "attribution" : "NULL";
  sql::Stmt procs(db, "SELECT device_idx, pid, name, first_seen_wall_ns, last_seen_wall_ns, max_used_memory_bytes, " +
                          gpu_use + ", " + attribution +
                          " FROM processes WHERE run_id = ? ORDER BY device_idx, first_seen_wall_ns, pid");
  procs.bind(1, row_id);
  while (procs.step()) {
    ProcessRecord p;
    p.device_index = static_cast<int>(procs.int64(0));
    p.pid = static_cast<std::uint32_t>(procs.int64(1));
    p.name = procs.text(2);
    p.first_seen_wall_ns = procs.int64(3);
    p.last_seen_wall_ns = procs.int64(4);
    if (auto m = procs.opt_int64(5); m && *m >= 0) p.max_used_memory_bytes = static_cast<std::uint64_t>(*m);
    if (!procs.is_null(6)) p.max_gpu_percent = procs.real(6);
    if (!procs.is_null(7) && !procs.is_null(8)) {
      p.gpu_percent_sum = procs.real(7);
      p.gpu_percent_reads = procs.int64(8);
    }
    if (!procs.is_null(9)) p.attribution = attribution_from_column(procs.text(9));
    out.push_back(std::move(p));
  }
}

// The stored events after those the load itself noted, then all in time order.
void read_events(sqlite3* db, std::int64_t row_id, std::vector<Event>& out) {
  sql::Stmt events(db, R"sql(
    SELECT wall_ns, mono_ns, device_idx, kind, message FROM events WHERE run_id = ? ORDER BY mono_ns, id)sql");
  events.bind(1, row_id);
  while (events.step()) {
    out.push_back(Event{{events.int64(1), events.int64(0)}, opt_int(events, 2), events.text(3), events.text(4)});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Event& a, const Event& b) { return a.time.mono_ns < b.time.mono_ns; });
}

}  // namespace

RunData Store::Impl::load_locked(const RunInfo& run, const LoadOptions& options) {
  // One read transaction: a consistent snapshot, while the writer goes on
  // appending to the WAL.
  sql::Transaction txn(db.get(), sql::Transaction::Kind::Read);
  RunData data = read_locked(run, options);
  txn.commit();
  trim_to_span(data, options);
  return data;
}

RunData Store::Impl::read_locked(const RunInfo& run, const LoadOptions& options) {
  sqlite3* raw = db.get();
  RunData data;
  data.run = run;

  LoadedDevices loaded;
  read_devices(raw, run.row_id, options, data, loaded);
  reserve_device_rows(raw, run.row_id, options, data, loaded);
  read_device_chunks(raw, run.row_id, options, data, loaded);
  pad_unrecorded_metrics(data, loaded);
  std::sort(data.devices.begin(), data.devices.end(),
            [](const DeviceSeries& a, const DeviceSeries& b) { return a.info.index < b.info.index; });

  if (options.host) {
    read_host(raw, run.row_id, options, data);
    read_processes(raw, run.row_id, {processes_have_gpu_use, processes_have_attribution}, data.processes);
    read_events(raw, run.row_id, data.events);
  }
  return data;
}

}  // namespace gpuwatch
