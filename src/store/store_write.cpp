// Recording: the run row, buffered samples, and the once-a-second commit.
#include <algorithm>
#include <limits>
#include <random>
#include <utility>

#include <fmt/format.h>

#include "store/chunk_codec.h"
#include "store/attribution_column.h"
#include "store/command_json.h"
#include "store/rollups.h"
#include "store/store_impl.h"

#ifndef GPUWATCH_VERSION
#define GPUWATCH_VERSION "unknown"
#endif

namespace gpuwatch {
namespace {

std::string random_run_id() {
  std::random_device rd;
  const std::uint64_t bits = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  return fmt::format("{:012x}", bits & 0xffff'ffff'ffffULL);
}

bool is_run_id(std::string_view s) {
  return s.size() == 12 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string static_values_text(const DeviceValues& values) {
  std::string out;
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    const auto v = values.get(static_cast<DeviceMetric>(i));
    if (!v) continue;
    if (!out.empty()) out += ',';
    out += fmt::format("{}={}", kDeviceMetrics[i].name, *v);
  }
  return out;
}

std::string supported_text(const std::vector<DeviceMetric>& metrics) {
  std::string out;
  for (const DeviceMetric m : metrics) {
    if (!out.empty()) out += ',';
    out += info(m).name;
  }
  return out;
}

void merge_process(ProcessRecord& into, const ProcessRecord& from) {
  if (!from.name.empty()) into.name = from.name;
  into.first_seen_wall_ns = std::min(into.first_seen_wall_ns, from.first_seen_wall_ns);
  into.last_seen_wall_ns = std::max(into.last_seen_wall_ns, from.last_seen_wall_ns);
  if (from.max_used_memory_bytes) {
    into.max_used_memory_bytes = std::max(into.max_used_memory_bytes.value_or(0), *from.max_used_memory_bytes);
  }
  if (from.max_gpu_percent) into.max_gpu_percent = std::max(into.max_gpu_percent.value_or(0), *from.max_gpu_percent);
  into.gpu_percent_sum += from.gpu_percent_sum;
  into.gpu_percent_reads += from.gpu_percent_reads;
  if (!from.attribution.empty()) into.attribution = from.attribution;
}

std::int64_t clamp_to_int64(std::uint64_t v) {
  return static_cast<std::int64_t>(std::min<std::uint64_t>(v, std::numeric_limits<std::int64_t>::max()));
}

// Rows [begin, end) of a series as one chunk; `value` gives row r, column c.
template <typename Row, typename ValueFn>
Chunk make_chunk(const std::vector<Row>& rows, std::size_t begin, std::size_t end, std::size_t columns,
                 ValueFn value) {
  Chunk c;
  const std::size_t n = end - begin;
  c.mono_ns.reserve(n);
  c.wall_ns.reserve(n);
  c.columns.assign(columns, ChunkColumn(n));
  for (std::size_t r = 0; r < n; ++r) {
    const Row& row = rows[begin + r];
    c.mono_ns.push_back(row.time.mono_ns);
    c.wall_ns.push_back(row.time.wall_ns);
    for (std::size_t k = 0; k < columns; ++k) c.columns[k][r] = value(row, k);
  }
  return c;
}

}  // namespace

std::optional<HeldRecorderLock> Store::Impl::insert_recorded_run(RunInfo& run, const std::vector<DeviceInfo>& devices) {
  insert_run(run, devices);
  // Locked before the row is visible, so that no reader sees the run
  // without its recorder's lock. Only this process's own run: a caller that
  // names another recorder pid speaks for a process that holds no lock.
  std::optional<HeldRecorderLock> held;
  if (runs_have_lock && run.recorder_pid == here.self.pid) held = take_recorder_lock(path, run.row_id);
  if (held) {
    sql::Stmt mark(db.get(), "UPDATE runs SET recorder_lock = ?1 WHERE id = ?2");
    mark.bind(1, held->offset()).bind(2, run.row_id).run();
  }
  return held;
}

void Store::Impl::store_unbegun_run() {
  if (!unbegun) return;
  sql::Transaction txn(db.get(), sql::Transaction::Kind::Write);
  std::optional<HeldRecorderLock> held = insert_recorded_run(unbegun->run, unbegun->devices);
  txn.commit();
  run_lock = std::move(held);
  active_row = unbegun->run.row_id;
  unbegun.reset();
}

std::string Store::begin_run(RunInfo& run, const std::vector<DeviceInfo>& devices) {
  std::lock_guard lock(impl_->db_mutex);
  impl_->require_writable();
  if (impl_->recording()) throw StoreError("a run is already being recorded through this store");

  const Timestamp t = now();
  if (run.start_wall_ns == 0 && run.start_mono_ns == 0) {
    run.start_wall_ns = t.wall_ns;
    run.start_mono_ns = t.mono_ns;
  }
  if (run.host.empty()) run.host = impl_->here.host;
  if (run.recorder_pid == 0) run.recorder_pid = impl_->here.self.pid;
  if (run.recorder_pid == impl_->here.self.pid && !run.recorder_start_ticks) {
    run.recorder_start_ticks = impl_->here.self.start_ticks;
  }
  if (run.recorder_boot_id.empty()) run.recorder_boot_id = impl_->here.boot_id;
  if (run.cwd.empty()) {
    std::error_code ec;
    run.cwd = std::filesystem::current_path(ec).string();
  }
  run.status = RunStatus::Recording;
  run.heartbeat_wall_ns = t.wall_ns;

  try {
    sql::Transaction txn(impl_->db.get(), sql::Transaction::Kind::Write);
    std::optional<HeldRecorderLock> held = impl_->insert_recorded_run(run, devices);
    txn.commit();
    impl_->run_lock = std::move(held);
    impl_->active_row = run.row_id;
  } catch (const sql::WriteRefusedError&) {
    // A full disk must not stop the command (the recorder never harms the
    // job): the row waits, with the samples, for a flush that can write it.
    if (run.id.empty()) throw;  // no id to give the run: it failed before the row
    run.row_id = 0;
    impl_->unbegun = Impl::Unbegun{run, devices};
  }
  std::lock_guard buf(impl_->buf_mutex);
  impl_->pending = {};
  impl_->accepting = true;
  return run.id;
}

void Store::Impl::insert_run(RunInfo& run, const std::vector<DeviceInfo>& devices) {
  sqlite3* raw = db.get();
  if (run.version.empty()) run.version = GPUWATCH_VERSION;
  sql::Stmt taken(raw, "SELECT 1 FROM runs WHERE public_id = ?");
  if (!run.id.empty()) {
    if (!is_run_id(run.id)) throw StoreError(fmt::format("'{}' is not a run id (12 lowercase hex characters)", run.id));
    if (taken.bind(1, run.id).step()) throw StoreError(fmt::format("run id {} is already in the store", run.id));
  } else {
    do {
      taken.reset();
      run.id = random_run_id();
    } while (taken.bind(1, run.id).step());
  }

  sql::Stmt ins(raw, R"sql(
    INSERT INTO runs (public_id, name, command, cwd, host, start_wall_ns, start_mono_ns, interval_s,
                      version, status, recorder_pid, recorder_boot_id, attached_pid, heartbeat_wall_ns,
                      host_columns, end_wall_ns, exit_code, exit_signal, end_reason, jitter_ticks,
                      jitter_missed_deadlines, jitter_mean_late_ns, jitter_p99_late_ns, jitter_max_late_ns)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,
            ?22, ?23, ?24))sql");
  const std::string command = encode_argv_json(run.command);
  const std::string host_columns = metric_names(kHostMetrics);
  std::optional<std::int64_t> attached;
  if (run.attached_pid) attached = *run.attached_pid;
  const JitterStats& j = run.jitter;
  ins.bind(1, run.id).bind(2, run.name).bind(3, command).bind(4, run.cwd).bind(5, run.host);
  ins.bind(6, run.start_wall_ns).bind(7, run.start_mono_ns).bind(8, run.interval_s).bind(9, run.version);
  ins.bind(10, to_db(run.status)).bind(11, run.recorder_pid).bind(12, run.recorder_boot_id).bind(13, attached);
  ins.bind(14, run.heartbeat_wall_ns).bind(15, host_columns).bind(16, run.end_wall_ns).bind(17, run.exit_code);
  ins.bind(18, run.exit_signal).bind(19, run.end_reason).bind(20, j.ticks).bind(21, j.missed_deadlines);
  ins.bind(22, j.mean_late_ns).bind(23, j.p99_late_ns).bind(24, j.max_late_ns).run();
  run.row_id = sqlite3_last_insert_rowid(raw);
  // Apart, so that a store opened with older schema steps (tests of the
  // migrations) still takes runs.
  if (run.recorder_start_ticks && runs_have_start_ticks) {
    sql::Stmt ticks(raw, "UPDATE runs SET recorder_start_ticks = ?2 WHERE id = ?1");
    ticks.bind(1, run.row_id).bind(2, clamp_to_int64(*run.recorder_start_ticks)).run();
  }
  if (run.slow_interval_s > 0 && runs_have_slow_interval) {
    sql::Stmt slow(raw, "UPDATE runs SET slow_interval_s = ?2 WHERE id = ?1");
    slow.bind(1, run.row_id).bind(2, run.slow_interval_s).run();
  }
  if (!run.job.empty() && runs_have_job) {
    sql::Stmt job(raw, R"sql(
      UPDATE runs SET job_id = ?2, job_source = ?3, job_rank = ?4, job_local_rank = ?5, job_world_size = ?6,
                      job_node_rank = ?7, job_node_count = ?8
      WHERE id = ?1)sql");
    // A view of the run's own string: SQLite keeps the pointer until the
    // statement runs (bound without a copy), so no temporary may be bound.
    const auto text_or_null = [](const std::string& s) {
      return s.empty() ? std::nullopt : std::optional<std::string_view>(s);
    };
    const JobInfo& jo = run.job;
    job.bind(1, run.row_id).bind(2, text_or_null(jo.id)).bind(3, text_or_null(jo.source)).bind(4, jo.rank);
    job.bind(5, jo.local_rank).bind(6, jo.world_size).bind(7, jo.node_rank).bind(8, jo.node_count).run();
  }

  sql::Stmt dev(raw, R"sql(
    INSERT INTO devices (run_id, idx, backend, vendor, name, uuid, pci_bus_id, driver_version,
                         supported_metrics, static_values, chunk_columns)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11))sql");
  const std::string chunk_columns = metric_names(kDeviceMetrics);
  for (const DeviceInfo& d : devices) {
    const std::string supported = supported_text(d.supported);
    const std::string statics = static_values_text(d.static_values);
    dev.reset();
    dev.bind(1, run.row_id).bind(2, d.index).bind(3, d.backend).bind(4, d.vendor).bind(5, d.name);
    dev.bind(6, d.uuid).bind(7, d.pci_bus_id).bind(8, d.driver_version).bind(9, supported);
    dev.bind(10, statics).bind(11, chunk_columns).run();
  }
}

void Store::append(const DeviceSample& sample) {
  std::lock_guard lock(impl_->buf_mutex);
  if (impl_->accepting) impl_->pending.devices[sample.device_index].push_back(sample);
}

void Store::append(const HostSample& sample) {
  std::lock_guard lock(impl_->buf_mutex);
  if (impl_->accepting) impl_->pending.host.push_back(sample);
}

void Store::note_process(const GpuProcess& process, const std::string& name, Timestamp seen) {
  ProcessRecord rec;
  rec.device_index = process.device_index;
  rec.pid = process.pid;
  rec.name = name.empty() ? process.name : name;
  rec.attribution = process.attribution;
  rec.first_seen_wall_ns = seen.wall_ns;
  rec.last_seen_wall_ns = seen.wall_ns;
  rec.max_used_memory_bytes = process.used_memory_bytes;
  if (process.gpu_percent && std::isfinite(*process.gpu_percent)) {
    rec.max_gpu_percent = *process.gpu_percent;
    rec.gpu_percent_sum = *process.gpu_percent;
    rec.gpu_percent_reads = 1;
  }
  std::lock_guard lock(impl_->buf_mutex);
  if (!impl_->accepting) return;
  auto [it, inserted] = impl_->pending.processes.try_emplace({process.device_index, process.pid}, rec);
  if (!inserted) merge_process(it->second, rec);
}

void Store::add_event(const Event& event) {
  std::lock_guard lock(impl_->buf_mutex);
  if (impl_->accepting) impl_->pending.events.push_back(event);
}

void Store::mark_lost(int device_index, Timestamp when) {
  std::lock_guard lock(impl_->buf_mutex);
  if (impl_->accepting) impl_->pending.lost.emplace_back(device_index, when.wall_ns);
}

void Store::flush() {
  std::lock_guard lock(impl_->db_mutex);
  impl_->require_writable();
  if (impl_->recording()) impl_->flush_locked();
}

void Store::finish_run(const RunInfo& run) {
  std::lock_guard lock(impl_->db_mutex);
  impl_->require_writable();
  if (!impl_->recording()) throw StoreError("finish_run() without a run being recorded");
  if (run.row_id != 0 && impl_->active_row && run.row_id != *impl_->active_row) {
    throw StoreError(fmt::format("finish_run() for run {}, which this store is not recording", run.id));
  }
  impl_->close_run_locked(&run);
}

void Store::Impl::flush_locked() {
  Pending batch;
  {
    std::lock_guard lock(buf_mutex);
    std::swap(batch, pending);
  }
  try {
    store_unbegun_run();
    sql::Transaction txn(db.get(), sql::Transaction::Kind::Write);
    write_pending(batch, *active_row);
    const Gap gap_written = write_gap(*active_row);
    // The recorder is authoritative about its own run: a reader that took a
    // long stall for death and marked it interrupted is overruled here.
    cached(update_heartbeat, R"sql(
      UPDATE runs SET heartbeat_wall_ns = ?1, status = 'recording', end_wall_ns = NULL, end_reason = ''
      WHERE id = ?2)sql");
    update_heartbeat->reset();
    update_heartbeat->bind(1, now().wall_ns).bind(2, *active_row).run();
    txn.commit();
    forget_gap(gap_written);
  } catch (const std::exception& e) {
    requeue(std::move(batch), e.what());
    throw;
  }
}

namespace {

constexpr std::string_view kInsertSampleChunkSql = R"sql(
    INSERT INTO sample_chunks (run_id, device_idx, first_mono_ns, last_mono_ns, count, data)
    VALUES (?, ?, ?, ?, ?, ?))sql";
constexpr std::string_view kInsertHostChunkSql = R"sql(
      INSERT INTO host_chunks (run_id, first_mono_ns, last_mono_ns, count, data)
      VALUES (?, ?, ?, ?, ?))sql";
// A process seen again keeps its widest span, its peaks, and the sums of
// its GPU use across commits.
constexpr std::string_view kUpsertProcessSql = R"sql(
      INSERT INTO processes (run_id, device_idx, pid, name, first_seen_wall_ns, last_seen_wall_ns,
                             max_used_memory_bytes, max_gpu_percent, gpu_percent_sum, gpu_percent_reads,
                             attribution)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
      ON CONFLICT (run_id, device_idx, pid) DO UPDATE SET
        name = CASE WHEN excluded.name <> '' THEN excluded.name ELSE processes.name END,
        first_seen_wall_ns = min(processes.first_seen_wall_ns, excluded.first_seen_wall_ns),
        last_seen_wall_ns = max(processes.last_seen_wall_ns, excluded.last_seen_wall_ns),
        max_used_memory_bytes = max(
          coalesce(processes.max_used_memory_bytes, excluded.max_used_memory_bytes),
          coalesce(excluded.max_used_memory_bytes, processes.max_used_memory_bytes)),
        max_gpu_percent = max(coalesce(processes.max_gpu_percent, excluded.max_gpu_percent),
                              coalesce(excluded.max_gpu_percent, processes.max_gpu_percent)),
        gpu_percent_sum = coalesce(processes.gpu_percent_sum, 0) + coalesce(excluded.gpu_percent_sum, 0),
        gpu_percent_reads = coalesce(processes.gpu_percent_reads, 0) + coalesce(excluded.gpu_percent_reads, 0),
        attribution = coalesce(excluded.attribution, processes.attribution))sql";
constexpr std::string_view kInsertEventSql = R"sql(
      INSERT INTO events (run_id, wall_ns, mono_ns, device_idx, kind, message)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6))sql";
constexpr std::string_view kMarkDeviceLostSql = R"sql(
      UPDATE devices SET lost_at_wall_ns = ?3
      WHERE run_id = ?1 AND idx = ?2 AND lost_at_wall_ns IS NULL)sql";

void insert_chunk(sql::Stmt& st, std::int64_t run_row, std::optional<int> device, const Chunk& c) {
  const std::vector<std::uint8_t> blob = encode_chunk(c);
  // Host chunks have no device column: their parameters start one earlier.
  const int at = device ? 3 : 2;
  st.reset();
  st.bind(1, run_row);
  if (device) st.bind(2, *device);
  st.bind(at, c.mono_ns.front()).bind(at + 1, c.mono_ns.back());
  st.bind(at + 2, static_cast<std::int64_t>(c.rows())).bind_blob(at + 3, blob).run();
}

void insert_device_chunks(sql::Stmt& st, std::int64_t run_row,
                          const std::map<int, std::vector<DeviceSample>>& devices) {
  const std::size_t dev_rows = max_chunk_rows(kDeviceMetricCount);
  for (const auto& [device, samples] : devices) {
    for (std::size_t b = 0; b < samples.size(); b += dev_rows) {
      const Chunk c = make_chunk(samples, b, std::min(samples.size(), b + dev_rows), kDeviceMetricCount,
                                 [](const DeviceSample& s, std::size_t k) {
                                   const auto m = static_cast<DeviceMetric>(k);
                                   const auto v = s.values.get(m);
                                   return v ? to_fixed(*v, info(m).scale) : std::nullopt;
                                 });
      insert_chunk(st, run_row, device, c);
    }
  }
}

// Host chunks: the host metrics, then one column per core (as many as the
// widest sample has, within the chunk's column limit).
void insert_host_chunks(sql::Stmt& st, std::int64_t run_row, const std::vector<HostSample>& host) {
  std::size_t cores = 0;
  for (const HostSample& s : host) cores = std::max(cores, s.core_percent.size());
  cores = std::min(cores, kChunkMaxColumns - kHostMetricCount);
  const std::size_t columns = kHostMetricCount + cores;
  const std::size_t rows = max_chunk_rows(columns);
  for (std::size_t b = 0; b < host.size(); b += rows) {
    const Chunk c = make_chunk(host, b, std::min(host.size(), b + rows), columns,
                               [](const HostSample& s, std::size_t k) -> std::optional<std::int64_t> {
                                 if (k < kHostMetricCount) {
                                   const auto m = static_cast<HostMetric>(k);
                                   const auto v = s.values.get(m);
                                   return v ? to_fixed(*v, info(m).scale) : std::nullopt;
                                 }
                                 const std::size_t core = k - kHostMetricCount;
                                 if (core >= s.core_percent.size()) return std::nullopt;
                                 return to_fixed(s.core_percent[core], 100);
                               });
    insert_chunk(st, run_row, std::nullopt, c);
  }
}

void upsert_processes(sql::Stmt& st, std::int64_t run_row,
                      const std::map<std::pair<int, std::uint32_t>, ProcessRecord>& processes) {
  for (const auto& [key, rec] : processes) {
    std::optional<std::int64_t> mem;
    if (rec.max_used_memory_bytes) mem = clamp_to_int64(*rec.max_used_memory_bytes);
    st.reset();
    st.bind(1, run_row).bind(2, rec.device_index).bind(3, static_cast<std::int64_t>(rec.pid));
    st.bind(4, rec.name).bind(5, rec.first_seen_wall_ns).bind(6, rec.last_seen_wall_ns).bind(7, mem);
    st.bind(8, rec.max_gpu_percent).bind(9, rec.gpu_percent_sum).bind(10, rec.gpu_percent_reads);
    st.bind(11, attribution_column(rec.attribution)).run();
  }
}

void insert_events(sql::Stmt& st, std::int64_t run_row, const std::vector<Event>& events) {
  for (const Event& e : events) {
    st.reset();
    st.bind(1, run_row).bind(2, e.time.wall_ns).bind(3, e.time.mono_ns).bind(4, e.device_index);
    st.bind(5, e.kind).bind(6, e.message).run();
  }
}

void mark_devices_lost(sql::Stmt& st, std::int64_t run_row, const std::vector<std::pair<int, std::int64_t>>& lost) {
  for (const auto& [device, wall] : lost) {
    st.reset();
    st.bind(1, run_row).bind(2, device).bind(3, wall).run();
  }
}

}  // namespace

// Each kind of row has its own statement, prepared on first use: those of
// host chunks, processes, events and lost devices only once there is one.
void Store::Impl::write_pending(const Pending& p, std::int64_t run_row) {
  insert_device_chunks(cached(insert_sample_chunk, kInsertSampleChunkSql), run_row, p.devices);
  if (!p.host.empty()) insert_host_chunks(cached(insert_host_chunk, kInsertHostChunkSql), run_row, p.host);
  if (!p.processes.empty()) upsert_processes(cached(upsert_process, kUpsertProcessSql), run_row, p.processes);
  if (!p.events.empty()) insert_events(cached(insert_event, kInsertEventSql), run_row, p.events);
  if (!p.lost.empty()) mark_devices_lost(cached(update_lost, kMarkDeviceLostSql), run_row, p.lost);
}

void Store::Impl::requeue(Pending&& failed, std::string_view why) {
  // `failed` is older than anything appended since; keep time order.
  std::lock_guard lock(buf_mutex);
  for (auto& [device, samples] : pending.devices) {
    auto& older = failed.devices[device];
    older.insert(older.end(), std::make_move_iterator(samples.begin()), std::make_move_iterator(samples.end()));
  }
  failed.host.insert(failed.host.end(), std::make_move_iterator(pending.host.begin()),
                     std::make_move_iterator(pending.host.end()));
  for (const auto& [key, rec] : pending.processes) {
    auto [it, inserted] = failed.processes.try_emplace(key, rec);
    if (!inserted) merge_process(it->second, rec);
  }
  failed.events.insert(failed.events.end(), pending.events.begin(), pending.events.end());
  failed.lost.insert(failed.lost.end(), pending.lost.begin(), pending.lost.end());
  pending = std::move(failed);
  trim_pending(kMaxBufferedBytes, why);
}

void Store::Impl::close_run_locked(const RunInfo* finished) {
  try {
    flush_locked();
  } catch (const StoreError& e) {
    // The samples do not fit (disk full). Give them up, counted, so that the
    // run's end and exit code, a few bytes, may still.
    std::lock_guard lock(buf_mutex);
    trim_pending(0, e.what());
  }
  {
    std::lock_guard lock(buf_mutex);
    accepting = false;
    pending = {};
  }
  if (unbegun) {
    try {
      store_unbegun_run();  // the samples are given up: the row alone may fit
    } catch (const StoreError& e) {
      unbegun.reset();
      throw RunNotStoredError(fmt::format("nothing of this run could be stored: {}", e.what()));
    }
  }
  const std::int64_t run_row = *active_row;
  active_row.reset();
  const std::int64_t wall = now().wall_ns;
  auto write_end = [&](bool with_gap) {
    sql::Transaction txn(db.get(), sql::Transaction::Kind::Write);
    const Gap gap_written = with_gap ? write_gap(run_row) : Gap{};
    update_end(run_row, finished, wall);
    txn.commit();
    forget_gap(gap_written);
  };
  {
    // Given back once the end is stored, or could not be: either way the row
    // speaks for itself from here on.
    const std::optional<HeldRecorderLock> lock = std::exchange(run_lock, std::nullopt);
    try {
      write_end(true);
    } catch (const StoreError&) {
      write_end(false);  // the end alone is smaller still; if even it fails, say so
    }
  }
  if (!finished) return;
  try {
    compact_run_locked(run_row);
  } catch (const StoreError&) {
    // Compaction only speeds up reading: the small chunks are still valid.
  }
  build_rollups_quietly(path, run_row);
}

void Store::Impl::update_end(std::int64_t run_row, const RunInfo* finished, std::int64_t wall) {
  sqlite3* raw = db.get();
  if (!finished) {
    sql::Stmt st(raw, R"sql(
      UPDATE runs SET status = 'interrupted', end_reason = 'interrupted', end_wall_ns = ?2,
                      heartbeat_wall_ns = ?2
      WHERE id = ?1)sql");
    st.bind(1, run_row).bind(2, wall).run();
    return;
  }
  const RunStatus status = finished->status == RunStatus::Recording ? RunStatus::Finished : finished->status;
  sql::Stmt st(raw, R"sql(
    UPDATE runs SET end_wall_ns = ?2, exit_code = ?3, exit_signal = ?4, status = ?5, end_reason = ?6,
                    heartbeat_wall_ns = ?7, jitter_ticks = ?8, jitter_missed_deadlines = ?9,
                    jitter_mean_late_ns = ?10, jitter_p99_late_ns = ?11, jitter_max_late_ns = ?12
    WHERE id = ?1)sql");
  const JitterStats& j = finished->jitter;
  st.bind(1, run_row).bind(2, finished->end_wall_ns.value_or(wall)).bind(3, finished->exit_code);
  st.bind(4, finished->exit_signal).bind(5, to_db(status)).bind(6, finished->end_reason).bind(7, wall);
  st.bind(8, j.ticks).bind(9, j.missed_deadlines).bind(10, j.mean_late_ns).bind(11, j.p99_late_ns);
  st.bind(12, j.max_late_ns).run();
}

}  // namespace gpuwatch
