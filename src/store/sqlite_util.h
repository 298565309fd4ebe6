// Thin RAII wrappers over the SQLite C API, private to the store. Every error
// becomes a StoreError carrying SQLite's message, so callers never check
// return codes by hand.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <sqlite3.h>

#include "store/store.h"

namespace gpuwatch::sql {

// SQLite said SQLITE_BUSY or SQLITE_LOCKED: another connection holds a lock
// it could not wait for (some waits bypass the busy timeout, e.g. while a
// new file is set up for WAL). Worth trying again.
class BusyError : public StoreError {
 public:
  using StoreError::StoreError;
};

// SQLite said SQLITE_FULL or SQLITE_IOERR: the file system refused a write
// (a full disk, a file size limit, a failing device). What was refused may
// fit later, once space comes back.
class WriteRefusedError : public StoreError {
 public:
  using StoreError::StoreError;
};

struct DbCloser {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;

// How long a connection waits for another one's lock before SQLITE_BUSY.
inline constexpr int kBusyTimeoutMs = 5000;

// Opens `name` (a path, or a file: URI with SQLITE_OPEN_URI) with extended
// result codes and the busy timeout; throws StoreError naming `path`.
Db open(const std::string& name, int flags, const std::filesystem::path& path);

// Throws StoreError with `what` and the connection's last error message
// (BusyError when that error is SQLITE_BUSY or SQLITE_LOCKED).
[[noreturn]] void fail(sqlite3* db, std::string_view what);

// Runs one or more statements without results (DDL, pragmas, BEGIN/COMMIT).
void exec(sqlite3* db, std::string_view sql);

// Writes `bytes` at `offset` into the blob in `column` of row `rowid` of
// `table` (incremental blob I/O: the blob exists, e.g. as a zeroblob, and is
// long enough), so that a large blob is written a piece at a time.
void write_blob(sqlite3* db, const char* table, const char* column, std::int64_t rowid, std::size_t offset,
                std::span<const std::uint8_t> bytes);

// Gives free pages back to the file system a bounded step at a time, each
// step its own short write transaction, so that another writer (a recorder
// committing once a second) waits for one step, never for the whole. Only a
// store created with auto_vacuum = INCREMENTAL (as this build creates them) can: in an older
// one this does nothing, and its free pages are reused by the next runs.
// Returns the number of pages given back.
std::int64_t release_free_pages(sqlite3* db);

// A prepared statement. Text and blobs are bound without copying
// (SQLITE_STATIC), so a bound buffer must outlive the step() that uses it;
// every caller binds and steps within one expression or block.
class Stmt {
 public:
  Stmt(sqlite3* db, std::string_view sql);
  ~Stmt();
  Stmt(Stmt&& other) noexcept;
  Stmt& operator=(Stmt&&) = delete;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Parameters are 1-based, as in SQLite.
  Stmt& bind(int i, std::int64_t v);
  Stmt& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Stmt& bind(int i, double v);
  Stmt& bind(int i, std::string_view v);
  Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Stmt& bind_blob(int i, std::span<const std::uint8_t> v);
  Stmt& bind_null(int i);
  template <typename T>
  Stmt& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : bind_null(i);
  }

  // True while a row is available; false when done. Throws on error.
  bool step();
  // Steps a statement that returns no rows.
  void run();
  // Ready for new bindings; keeps the compiled statement.
  void reset();

  // Columns are 0-based, as in SQLite.
  [[nodiscard]] bool is_null(int c) const;
  [[nodiscard]] std::int64_t int64(int c) const;
  [[nodiscard]] double real(int c) const;
  [[nodiscard]] std::string text(int c) const;
  [[nodiscard]] std::optional<std::int64_t> opt_int64(int c) const;
  // Valid until the next step() or reset().
  [[nodiscard]] std::span<const std::uint8_t> blob(int c) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN (deferred or immediate) ... COMMIT; rolls back when destroyed
// without commit(), e.g. during stack unwinding.
class Transaction {
 public:
  enum class Kind { Read, Write };
  Transaction(sqlite3* db, Kind kind);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  sqlite3* db_;
  bool open_ = true;
};

}  // namespace gpuwatch::sql
