#include "store/store_delete.h"

#include <algorithm>

#include <fmt/format.h>

#include "store/sqlite_util.h"
#include "store/store.h"

namespace gpuwatch {

namespace {

sql::Db open_for_delete(const std::filesystem::path& path) {
  sql::Db db = sql::open(path.string(), SQLITE_OPEN_READWRITE, path);
  sql::exec(db.get(), "PRAGMA foreign_keys = ON");  // what makes the one DELETE cascade
  return db;
}

}  // namespace

std::size_t delete_runs(const std::filesystem::path& path, const std::vector<std::string>& ids, bool force) {
  if (!std::filesystem::exists(path)) throw StoreError(fmt::format("no run store at {}", path.string()));
  // The Store settles liveness (a dead recorder's run is stored as
  // interrupted) and migrates the file; the rows then go in one transaction.
  const std::vector<RunInfo> listed = Store::open(path, false)->list_runs();
  sql::Db db = open_for_delete(path);
  sql::Transaction txn(db.get(), sql::Transaction::Kind::Write);
  sql::Stmt status(db.get(), "SELECT id, status FROM runs WHERE public_id = ?");
  sql::Stmt erase(db.get(), "DELETE FROM runs WHERE id = ?");
  std::size_t deleted = 0;
  for (const std::string& id : ids) {
    status.bind(1, id);
    if (!status.step()) {  // already gone: deleting is idempotent
      status.reset();
      continue;
    }
    const std::int64_t row = status.int64(0);
    const bool recording_now = status.text(1) == "recording";
    status.reset();
    const auto seen = std::find_if(listed.begin(), listed.end(), [&id](const RunInfo& r) { return r.id == id; });
    // Live: still "recording" and either listed so or begun since. Listed as
    // interrupted, its recorder is gone (the row says so unless the store
    // could not be updated then).
    const bool live = recording_now && (seen == listed.end() || seen->status == RunStatus::Recording);
    if (live && !force) {
      const std::string name = seen != listed.end() && !seen->name.empty() ? fmt::format(" ({})", seen->name) : "";
      const std::string pid = seen != listed.end() ? fmt::format(" (recorder pid {})", seen->recorder_pid) : "";
      throw StoreError(
          fmt::format("run {}{} is still being recorded{}; stop it first, or pass --force", id, name, pid));
    }
    erase.bind(1, row).run();
    erase.reset();
    ++deleted;
  }
  txn.commit();
  try {
    sql::release_free_pages(db.get());
  } catch (const StoreError&) {
    // The runs are gone; pages not given back now are reused by later runs.
  }
  return deleted;
}

void vacuum_store(const std::filesystem::path& path) {
  sql::Db db = open_for_delete(path);
  // Also turns a store made before issue 25 into one that gives its free
  // pages back by itself from now on.
  sql::exec(db.get(), "PRAGMA auto_vacuum = INCREMENTAL; VACUUM");
}

}  // namespace gpuwatch
