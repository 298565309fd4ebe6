// Compaction: when a run finishes, its once-a-second chunks (ten rows each at
// 10 Hz) are merged into chunks of a few thousand rows. A 35-hour run on
// 8 GPUs goes from a million chunk rows to a few thousand, and reading it
// back for a report costs half as much: per-row overhead (SQLite steps,
// allocations per decoded column) was half the time.
#include <limits>
#include <optional>
#include <utility>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "store/chunk_codec.h"
#include "store/store_impl.h"

namespace gpuwatch {
namespace {

// Large enough that per-chunk costs vanish, small enough that a reader
// decoding one chunk (rows x columns x 16 bytes) stays at a few MiB.
constexpr std::size_t kCompactRows = 8192;
// Chunk ids read at a time.
constexpr std::size_t kIdsPerPage = 4096;

struct Merged {
  Chunk chunk;
  std::vector<std::int64_t> old_ids;
};

void append_chunk(Chunk& into, Chunk&& from) {
  if (into.columns.empty()) into.columns.resize(from.columns.size());
  into.mono_ns.insert(into.mono_ns.end(), from.mono_ns.begin(), from.mono_ns.end());
  into.wall_ns.insert(into.wall_ns.end(), from.wall_ns.begin(), from.wall_ns.end());
  for (std::size_t k = 0; k < from.columns.size(); ++k) {
    into.columns[k].insert(into.columns[k].end(), from.columns[k].begin(), from.columns[k].end());
  }
}

// Merges one series (a device's chunks, or the host's) in time order. Only
// neighbours with the same columns merge; a chunk that does not decode stays
// as it is, for the reader to report. One merged chunk is held at a time and
// written as soon as it is full: the finish of a run of any length stays
// within a few MiB (it held the whole series decoded before: 0.93 GiB at
// 10 M device-samples, issue 25).
class SeriesCompactor {
 public:
  SeriesCompactor(sqlite3* db, std::int64_t run_row, std::optional<int> device)
      : db_(db), run_row_(run_row), device_(device), table_(device ? "sample_chunks" : "host_chunks") {}

  void run() {
    sql::Stmt read(db_, fmt::format("SELECT data FROM {} WHERE id = ?1", table_));
    const std::int64_t last_old_id = max_id();
    std::optional<std::pair<std::int64_t, std::int64_t>> after;  // (first_mono_ns, id) of the last visited
    for (;;) {
      const std::vector<std::pair<std::int64_t, std::int64_t>> page = chunk_page(last_old_id, after);
      if (page.empty()) break;
      after = page.back();
      for (const auto& [first_mono, id] : page) merge_chunk(read, id);
    }
    emit();
  }

 private:
  static std::size_t max_rows(std::size_t columns) { return std::min(kCompactRows * 2, max_chunk_rows(columns)); }

  void merge_chunk(sql::Stmt& read, std::int64_t id) {
    read.reset();
    read.bind(1, id);
    if (!read.step()) return;
    auto chunk = decode_chunk(read.blob(0));
    read.reset();  // no statement left running across the write transactions below
    if (!chunk || chunk->rows() == 0) {
      emit();
      return;
    }
    const bool fits = current_.chunk.columns.empty() ||
                      (chunk->columns.size() == current_.chunk.columns.size() &&
                       current_.chunk.rows() + chunk->rows() <= max_rows(chunk->columns.size()));
    if (!fits) emit();
    append_chunk(current_.chunk, std::move(*chunk));
    current_.old_ids.push_back(id);
    if (current_.chunk.rows() >= kCompactRows) emit();
  }

  std::int64_t max_id() const {
    sql::Stmt q(db_, fmt::format("SELECT max(id) FROM {}", table_));
    return q.step() ? q.int64(0) : 0;
  }

  // The next of the series' chunks in time order, (first_mono_ns, id), a
  // page at a time: memory stays flat however many one-second chunks a long
  // run left (a device's 1.26 M at 350 h held 10 MB of ids). Only ids up to
  // `last_old_id`: the merged chunks written meanwhile come after it (a new
  // row's id is above every id in the table, and each merged chunk is
  // inserted before the chunks it replaces are deleted).
  std::vector<std::pair<std::int64_t, std::int64_t>> chunk_page(
      std::int64_t last_old_id, const std::optional<std::pair<std::int64_t, std::int64_t>>& after) const {
    sql::Stmt select(db_, fmt::format("SELECT first_mono_ns, id FROM {} WHERE run_id = ?1{} AND id <= ?3 AND "
                                      "(first_mono_ns, id) > (?4, ?5) ORDER BY first_mono_ns, id LIMIT {}",
                                      table_, device_ ? " AND device_idx = ?2" : "", kIdsPerPage));
    select.bind(1, run_row_).bind(3, last_old_id);
    if (device_) select.bind(2, std::int64_t{*device_});
    select.bind(4, after ? after->first : std::numeric_limits<std::int64_t>::min());
    select.bind(5, after ? after->second : std::numeric_limits<std::int64_t>::min());
    std::vector<std::pair<std::int64_t, std::int64_t>> page;
    while (select.step()) page.emplace_back(select.int64(0), select.int64(1));
    return page;
  }

  void emit() {
    if (current_.old_ids.size() >= 2) write(current_);
    current_ = {};
  }

  // The merged chunk and the removal of those it replaces, in one short
  // transaction: a reader sees every row exactly once at any moment, the
  // WAL holds one merged chunk's pages at a time (one transaction per series
  // grew it to gigabytes at 100 M device-samples), and another recorder's
  // commit waits for one merge at most.
  void write(const Merged& m) const {
    const std::vector<std::uint8_t> blob = encode_chunk(m.chunk);
    sql::Transaction txn(db_, sql::Transaction::Kind::Write);
    sql::Stmt insert(db_, device_ ? fmt::format("INSERT INTO {} (run_id, device_idx, first_mono_ns, last_mono_ns, "
                                                "count, data) VALUES (?1, ?6, ?2, ?3, ?4, ?5)", table_)
                                  : fmt::format("INSERT INTO {} (run_id, first_mono_ns, last_mono_ns, count, data) "
                                                "VALUES (?1, ?2, ?3, ?4, ?5)", table_));
    insert.bind(1, run_row_).bind(2, m.chunk.mono_ns.front()).bind(3, m.chunk.mono_ns.back());
    insert.bind(4, static_cast<std::int64_t>(m.chunk.rows())).bind_blob(5, blob);
    if (device_) insert.bind(6, std::int64_t{*device_});
    insert.run();
    sql::Stmt remove(db_, fmt::format("DELETE FROM {} WHERE id = ?1", table_));
    for (std::int64_t id : m.old_ids) {
      remove.reset();
      remove.bind(1, id).run();
    }
    txn.commit();
  }

  sqlite3* db_;
  std::int64_t run_row_;
  std::optional<int> device_;
  std::string_view table_;
  Merged current_;
};

}  // namespace

void Store::Impl::compact_run_locked(std::int64_t run_row) {
  sqlite3* raw = db.get();
  std::vector<std::optional<int>> series;  // each device, then the host (nullopt)
  {
    sql::Stmt q(raw, "SELECT DISTINCT device_idx FROM sample_chunks WHERE run_id = ?1");
    q.bind(1, run_row);
    while (q.step()) series.emplace_back(static_cast<int>(q.int64(0)));
  }
  series.emplace_back(std::nullopt);
  // One transaction per merged chunk (SeriesCompactor::write): a failure
  // leaves what was merged before it merged, and the rest as it was.
  for (const std::optional<int>& device : series) {
    SeriesCompactor(raw, run_row, device).run();
    // The replaced chunks' pages, given back before the next series so that
    // the file never holds much more than the run's data (the series' old
    // and new chunks at most).
    sql::release_free_pages(raw);
  }
}

}  // namespace gpuwatch
