#include "store/sqlite_util.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "store/store.h"

namespace gpuwatch::sql {

Db open(const std::string& name, int flags, const std::filesystem::path& path) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) {
    // The system's reason ("Permission denied") says more than SQLite's
    // ("unable to open database file").
    const int err = raw ? sqlite3_system_errno(raw) : 0;
    throw StoreError(fmt::format("cannot open the run store {}: {}", path.string(),
                                 err != 0 ? std::strerror(err) : raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  return db;
}

namespace {

bool is_busy(int rc) {
  const int primary = rc & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

bool is_write_refused(int rc) {
  const int primary = rc & 0xff;
  return primary == SQLITE_FULL || primary == SQLITE_IOERR;
}

}  // namespace

void fail(sqlite3* db, std::string_view what) {
  std::string message = fmt::format("{}: {}", what, db ? sqlite3_errmsg(db) : "out of memory");
  if (db && is_busy(sqlite3_extended_errcode(db))) throw BusyError(std::move(message));
  if (db && is_write_refused(sqlite3_extended_errcode(db))) throw WriteRefusedError(std::move(message));
  throw StoreError(std::move(message));
}

void exec(sqlite3* db, std::string_view sql) {
  const std::string text(sql);
  char* err = nullptr;
  if (const int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, &err); rc != SQLITE_OK) {
    std::string msg = fmt::format("SQL failed ({}): {}", text.substr(0, 60), err ? err : sqlite3_errmsg(db));
    sqlite3_free(err);
    if (is_busy(rc)) throw BusyError(std::move(msg));
    if (is_write_refused(rc)) throw WriteRefusedError(std::move(msg));
    throw StoreError(std::move(msg));
  }
}

Stmt::Stmt(sqlite3* db, std::string_view sql) : db_(db) {
  if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &stmt_, nullptr) != SQLITE_OK) {
    fail(db, fmt::format("preparing '{}'", sql.substr(0, 60)));
  }
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

Stmt::Stmt(Stmt&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }

namespace {
void check_bind(sqlite3* db, int rc) {
  if (rc != SQLITE_OK) fail(db, "binding a parameter");
}
}  // namespace

Stmt& Stmt::bind(int i, std::int64_t v) {
  check_bind(db_, sqlite3_bind_int64(stmt_, i, v));
  return *this;
}

Stmt& Stmt::bind(int i, double v) {
  check_bind(db_, sqlite3_bind_double(stmt_, i, v));
  return *this;
}

Stmt& Stmt::bind(int i, std::string_view v) {
  // A null data pointer would bind SQL NULL instead of ''.
  const char* data = v.data() ? v.data() : "";
  check_bind(db_, sqlite3_bind_text64(stmt_, i, data, v.size(), nullptr, SQLITE_UTF8));
  return *this;
}

Stmt& Stmt::bind_blob(int i, std::span<const std::uint8_t> v) {
  if (v.empty()) {
    check_bind(db_, sqlite3_bind_zeroblob(stmt_, i, 0));
  } else {
    check_bind(db_, sqlite3_bind_blob64(stmt_, i, v.data(), v.size(), nullptr));
  }
  return *this;
}

Stmt& Stmt::bind_null(int i) {
  check_bind(db_, sqlite3_bind_null(stmt_, i));
  return *this;
}

bool Stmt::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const std::string sql = sqlite3_sql(stmt_) ? sqlite3_sql(stmt_) : "";
  sqlite3_reset(stmt_);
  fail(db_, fmt::format("running '{}'", sql.substr(0, 60)));
}

void Stmt::run() {
  while (step()) {
  }
}

void Stmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Stmt::is_null(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }

std::int64_t Stmt::int64(int c) const { return sqlite3_column_int64(stmt_, c); }

double Stmt::real(int c) const { return sqlite3_column_double(stmt_, c); }

std::string Stmt::text(int c) const {
  const unsigned char* p = sqlite3_column_text(stmt_, c);
  if (!p) return {};
  const int n = sqlite3_column_bytes(stmt_, c);
  return {reinterpret_cast<const char*>(p), static_cast<std::size_t>(n)};
}

std::optional<std::int64_t> Stmt::opt_int64(int c) const {
  if (is_null(c)) return std::nullopt;
  return int64(c);
}

std::span<const std::uint8_t> Stmt::blob(int c) const {
  const void* p = sqlite3_column_blob(stmt_, c);
  const int n = sqlite3_column_bytes(stmt_, c);
  if (!p || n <= 0) return {};
  return {static_cast<const std::uint8_t*>(p), static_cast<std::size_t>(n)};
}

void write_blob(sqlite3* db, const char* table, const char* column, std::int64_t rowid, std::size_t offset,
                std::span<const std::uint8_t> bytes) {
  sqlite3_blob* handle = nullptr;
  if (sqlite3_blob_open(db, "main", table, column, rowid, 1, &handle) != SQLITE_OK) {
    sqlite3_blob_close(handle);
    fail(db, fmt::format("opening the blob of row {} of {}", rowid, table));
  }
  const int rc = sqlite3_blob_write(handle, bytes.data(), static_cast<int>(bytes.size()), static_cast<int>(offset));
  sqlite3_blob_close(handle);
  if (rc != SQLITE_OK) fail(db, fmt::format("writing the blob of row {} of {}", rowid, table));
}

namespace {

// 8 MiB of 4 KiB pages moved per step: tens of milliseconds.
constexpr std::int64_t kReleasePagesPerStep = 2048;

std::int64_t pragma_int(sqlite3* db, const char* pragma) {
  Stmt q(db, pragma);
  return q.step() ? q.int64(0) : 0;
}

}  // namespace

std::int64_t release_free_pages(sqlite3* db) {
  constexpr std::int64_t kIncremental = 2;
  if (pragma_int(db, "PRAGMA auto_vacuum") != kIncremental) return 0;
  std::int64_t released = 0;
  for (;;) {
    Transaction txn(db, Transaction::Kind::Write);
    const std::int64_t free_pages = pragma_int(db, "PRAGMA freelist_count");
    if (free_pages == 0) break;  // the transaction rolls back: nothing changed
    Stmt step(db, fmt::format("PRAGMA incremental_vacuum({})", kReleasePagesPerStep));
    step.run();
    txn.commit();
    released += std::min(free_pages, kReleasePagesPerStep);
  }
  return released;
}

Transaction::Transaction(sqlite3* db, Kind kind) : db_(db) {
  // IMMEDIATE takes the write lock up front, so a busy writer waits in
  // busy_timeout here instead of failing mid-transaction with SQLITE_BUSY.
  exec(db, kind == Kind::Write ? "BEGIN IMMEDIATE" : "BEGIN");
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  exec(db_, "COMMIT");
  open_ = false;
}

}  // namespace gpuwatch::sql
