#include "store/sample_cursor.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "store/chunk_codec.h"
#include "store/store_impl.h"
#include "store/store_read.h"

namespace gpuwatch {
namespace {

constexpr std::size_t kAge = static_cast<std::size_t>(DeviceMetric::SlowReadAgeSeconds);

sql::Stmt device_chunks(sqlite3* db, std::int64_t run_row, int device_index) {
  // The order Store::load reads them in (store_read.cpp).
  sql::Stmt q(db, R"sql(
    SELECT first_mono_ns, last_mono_ns, count, data FROM sample_chunks
    WHERE run_id = ?1 AND device_idx = ?2 ORDER BY first_mono_ns, id)sql");
  q.bind(1, run_row).bind(2, std::int64_t{device_index});
  return q;
}

// The metrics that have a chunk column: the ones decoded.
std::vector<std::size_t> decoded_metrics(const std::vector<int>& sources) {
  std::vector<std::size_t> out;
  for (std::size_t m = 0; m < sources.size(); ++m) {
    if (sources[m] >= 0) out.push_back(m);
  }
  return out;
}

// Row i of a decoded series: the metrics its chunks hold (`decoded`).
DeviceSample row_at(const DeviceSeries& s, const std::vector<std::size_t>& decoded, std::size_t i) {
  DeviceSample out;
  out.device_index = s.info.index;
  out.time = {s.mono_ns[i], s.wall_ns[i]};
  for (const std::size_t m : decoded) {
    const double v = s.values[m][i];
    if (!std::isnan(v)) out.values.set(static_cast<DeviceMetric>(m), v);
  }
  return out;
}

// Empties a series' rows, keeping its columns and their memory for the next chunk.
template <typename Series>
void clear_rows(Series& s) {
  s.mono_ns.clear();
  s.wall_ns.clear();
  for (auto& column : s.values) column.clear();
}

}  // namespace

// Named, not anonymous: SampleCursor::State holds them (in a unity build
// GCC's -Wsubobject-linkage takes this file for a header).
namespace sample_cursor_parts {

// One GPU's chunks in time order, one decoded at a time.
class DeviceChunkReader {
 public:
  DeviceChunkReader(sqlite3* db, std::int64_t run_row, const DeviceInfo& info, std::vector<int> sources)
      : chunks_(device_chunks(db, run_row, info.index)), sources_(std::move(sources)), decoded_(decoded_metrics(sources_)) {
    buffer_.info = info;
    buffer_.values.resize(kDeviceMetricCount);
  }
  // Whether a row is at hand; decodes the next chunk when the last is used up.
  bool ready(const CorruptChunk& corrupt) {
    while (i_ >= buffer_.mono_ns.size() && !done_) {
      clear();
      if (chunks_.step()) {
        append_device_chunk(chunks_, 0, buffer_, sources_, true, corrupt);
      } else {
        done_ = true;
      }
    }
    return i_ < buffer_.mono_ns.size();
  }
  [[nodiscard]] std::int64_t mono_ns() const { return buffer_.mono_ns[i_]; }
  DeviceSample take() { return row_at(buffer_, decoded_, i_++); }

 private:
  void clear() {
    i_ = 0;
    clear_rows(buffer_);
  }
  sql::Stmt chunks_;
  std::vector<int> sources_;
  std::vector<std::size_t> decoded_;  // metrics with a chunk column
  DeviceSeries buffer_;
  std::size_t i_ = 0;
  bool done_ = false;
};

// The most cores any host chunk has: Store::load pads every host row to
// them (a rectangle), so the first row written needs the run's widest chunk.
// Only each chunk's header is looked at. (Incremental blob reads, one handle
// reopened per chunk, took 3.7 s for the 1.26 M one-second host chunks of a
// 350-hour run; a scan of the headers' bytes takes a fraction of that.)
std::size_t widest_host_cores(sqlite3* db, std::int64_t run_row, std::size_t named) {
  // 21 bytes: the longest header, a format byte and two 10-byte varints.
  sql::Stmt heads(db, "SELECT substr(data, 1, 21) FROM host_chunks WHERE run_id = ?1");
  heads.bind(1, run_row);
  std::size_t cores = 0;
  while (heads.step()) {
    const auto columns = chunk_column_count(heads.blob(0));
    if (columns && *columns > named) cores = std::max(cores, *columns - named);
  }
  return cores;
}

// The host's chunks in time order, one decoded at a time.
class HostChunkReader {
 public:
  HostChunkReader(sqlite3* db, std::int64_t run_row)
      : chunks_(db, R"sql(
          SELECT first_mono_ns, last_mono_ns, count, data FROM host_chunks
          WHERE run_id = ?1 ORDER BY first_mono_ns, id)sql") {
    const std::string names = host_column_names(db, run_row);
    sources_ = column_sources(kHostMetrics, names);
    named_ = names.empty() ? kHostMetricCount : split_commas(names).size();
    buffer_.values.resize(kHostMetricCount);
    buffer_.core_percent.resize(widest_host_cores(db, run_row, named_));
    chunks_.bind(1, run_row);
  }
  // Unreadable chunks are noted in `notes`.
  bool ready(RunData& notes) {
    while (i_ >= buffer_.mono_ns.size() && !done_) {
      clear();
      if (!chunks_.step()) {
        done_ = true;
      } else if (auto c = decode_checked_chunk(chunks_, 0, notes)) {
        append_host_chunk(*c, sources_, named_, buffer_);
      }
    }
    return i_ < buffer_.mono_ns.size();
  }
  [[nodiscard]] std::int64_t mono_ns() const { return buffer_.mono_ns[i_]; }
  HostSample take() { return host_sample_at(buffer_, i_++); }

 private:
  void clear() {
    i_ = 0;
    clear_rows(buffer_);
    for (auto& column : buffer_.core_percent) column.clear();
  }
  sql::Stmt chunks_;
  std::vector<int> sources_;
  std::size_t named_ = 0;
  HostSeries buffer_;
  std::size_t i_ = 0;
  bool done_ = false;
};

}  // namespace sample_cursor_parts

namespace {

// The GPUs whose chunks name them, including any the devices table lacks
// (Store::load adds those without facts): one index seek per GPU.
std::vector<int> chunk_devices(sqlite3* db, std::int64_t run_row) {
  sql::Stmt q(db, "SELECT MIN(device_idx) FROM sample_chunks WHERE run_id = ?1 AND device_idx > ?2");
  std::vector<int> out;
  std::int64_t after = std::numeric_limits<std::int64_t>::min();
  for (;;) {
    q.reset();
    q.bind(1, run_row).bind(2, after);
    if (!q.step() || q.is_null(0)) return out;
    after = q.int64(0);
    out.push_back(static_cast<int>(after));
  }
}

// Each GPU's chunk column names, by index.
std::map<int, std::string> recorded_columns(sqlite3* db, std::int64_t run_row) {
  sql::Stmt q(db, "SELECT idx, chunk_columns FROM devices WHERE run_id = ?1");
  q.bind(1, run_row);
  std::map<int, std::string> out;
  while (q.step()) out[static_cast<int>(q.int64(0))] = q.text(1);
  return out;
}

}  // namespace

using sample_cursor_parts::DeviceChunkReader;
using sample_cursor_parts::HostChunkReader;

struct SampleCursor::State {
  std::unique_lock<std::mutex> lock;
  sqlite3* db = nullptr;
  sql::Transaction txn;
  RunData base;
  RunData notes;  // unreadable chunks found so far, not yet handed out
  std::vector<DeviceChunkReader> devices;  // the selected ones
  std::vector<std::size_t> positions;  // each one's place in base.devices
  std::map<int, std::string> columns;  // chunk column names by GPU
  std::optional<HostChunkReader> host;
  std::deque<Event> pending;

  State(std::mutex& mutex, sqlite3* connection)
      : lock(mutex), db(connection), txn(connection, sql::Transaction::Kind::Read) {}

  [[nodiscard]] std::vector<int> sources_of(int index) const {
    const auto it = columns.find(index);
    return column_sources(kDeviceMetrics, it == columns.end() ? std::string_view() : std::string_view(it->second));
  }
  void add_chunk_only_devices() {
    for (const int index : chunk_devices(db, base.run.row_id)) {
      const bool known = std::any_of(base.devices.begin(), base.devices.end(),
                                     [index](const DeviceSeries& d) { return d.info.index == index; });
      if (known) continue;
      DeviceSeries s;
      s.info.index = index;
      s.values.resize(kDeviceMetricCount);
      base.devices.push_back(std::move(s));
    }
    std::sort(base.devices.begin(), base.devices.end(),
              [](const DeviceSeries& a, const DeviceSeries& b) { return a.info.index < b.info.index; });
  }
  void open_readers(const RowSelection& selection) {
    for (std::size_t p = 0; selection.devices && p < base.devices.size(); ++p) {
      const DeviceInfo& info = base.devices[p].info;
      if (selection.device && info.index != *selection.device) continue;
      devices.emplace_back(db, base.run.row_id, info, sources_of(info.index));
      positions.push_back(p);
    }
    if (selection.host) host.emplace(db, base.run.row_id);
  }
};

SampleCursor::SampleCursor(Store& store, const RunInfo& run, const RowSelection& selection) {
  Store::Impl& impl = *store.impl_;
  state_ = std::make_unique<State>(impl.db_mutex, impl.db.get());
  auto found = run.row_id != 0
                   ? impl.query_runs("WHERE id = ?", [&run](sql::Stmt& q) { q.bind(1, run.row_id); })
                   : impl.query_runs("WHERE public_id = ?", [&run](sql::Stmt& q) { q.bind(1, run.id); });
  if (found.empty()) throw StoreError(fmt::format("run {} is not in the store {}", run.id, impl.path.string()));
  LoadOptions facts;
  facts.device_samples = false;
  facts.host_samples = false;
  State& s = *state_;
  s.base = impl.read_locked(found.front(), facts);
  s.notes.run = s.base.run;
  s.columns = recorded_columns(s.db, s.base.run.row_id);
  s.add_chunk_only_devices();
  s.open_readers(selection);
}

SampleCursor::~SampleCursor() = default;

const RunData& SampleCursor::base() const { return state_->base; }

bool SampleCursor::next(RunRow& row) {
  State& s = *state_;
  const CorruptChunk corrupt = [&s](std::int64_t first, std::optional<int> device, std::string_view why) {
    note_corrupt_chunk(s.notes, first, device, why);
  };
  // The earliest row; a tie goes to the host, then to the lower position.
  std::optional<std::size_t> best;
  for (std::size_t k = 0; k < s.devices.size(); ++k) {
    if (s.devices[k].ready(corrupt) && (!best || s.devices[k].mono_ns() < s.devices[*best].mono_ns())) best = k;
  }
  const bool host = s.host && s.host->ready(s.notes) && (!best || s.host->mono_ns() <= s.devices[*best].mono_ns());
  if (!s.notes.events.empty()) {
    for (Event& e : s.notes.events) s.pending.push_back(std::move(e));
    s.notes.events.clear();
  }
  if (!s.pending.empty()) {
    row.kind = RunRow::Kind::Event;
    row.event = std::move(s.pending.front());
    s.pending.pop_front();
    return true;
  }
  if (host) {
    row.kind = RunRow::Kind::Host;
    row.host_sample = s.host->take();
    return true;
  }
  if (!best) return false;
  row.kind = RunRow::Kind::Device;
  row.device = s.positions[*best];
  row.device_sample = s.devices[*best].take();
  return true;
}

std::optional<DeviceSample> SampleCursor::first_slow_read(std::size_t device) {
  State& s = *state_;
  if (device >= s.base.devices.size()) return std::nullopt;
  const DeviceSeries& facts = s.base.devices[device];
  const std::vector<int> sources = s.sources_of(facts.info.index);
  if (sources[kAge] < 0) return std::nullopt;
  // The age column alone first (the others are stepped over), then the whole
  // chunk that has a read.
  std::vector<int> age_only(sources.size(), kNotAsked);
  age_only[kAge] = sources[kAge];
  const CorruptChunk ignore = [](std::int64_t, std::optional<int>, std::string_view) {};
  sql::Stmt chunks = device_chunks(s.db, s.base.run.row_id, facts.info.index);
  while (chunks.step()) {
    DeviceSeries ages;
    ages.values.resize(kDeviceMetricCount);
    append_device_chunk(chunks, 0, ages, age_only, false, ignore);
    const auto& age = ages.values[kAge];
    const auto first = std::find_if(age.begin(), age.end(), [](double v) { return !std::isnan(v); });
    if (first == age.end()) continue;
    DeviceSeries whole;
    whole.info = facts.info;
    whole.values.resize(kDeviceMetricCount);
    append_device_chunk(chunks, 0, whole, sources, true, ignore);
    if (whole.mono_ns.size() != age.size()) continue;  // the other columns do not decode
    return row_at(whole, decoded_metrics(sources), static_cast<std::size_t>(first - age.begin()));
  }
  return std::nullopt;
}

OpenRows stored_rows(Store& store, RunInfo run) {
  return [&store, run = std::move(run)](const RowSelection& selection) -> std::unique_ptr<RowCursor> {
    return std::make_unique<SampleCursor>(store, run, selection);
  };
}

}  // namespace gpuwatch
