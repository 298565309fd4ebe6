// Opening the store, locating it, and telling live recorders from dead ones.
#include "store/store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "base/host_name.h"
#include "store/recorder_lock.h"
#include "store/schema.h"
#include "store/store_impl.h"

namespace gpuwatch {

// The file keeps the names the program shows.
std::string_view to_db(RunStatus s) { return to_string(s); }

RunStatus run_status_from_db(std::string_view s) {
  if (s == "recording") return RunStatus::Recording;
  if (s == "finished") return RunStatus::Finished;
  return RunStatus::Interrupted;
}

std::filesystem::path default_store_path(const EnvironmentLookup& lookup) {
  auto env = [&lookup](const char* name) -> std::string { return lookup(name).value_or(""); };
  if (auto store = env("GPUWATCH_STORE"); !store.empty()) return store;
  // The XDG spec says to ignore a relative XDG_DATA_HOME.
  if (auto xdg = env("XDG_DATA_HOME"); !xdg.empty() && xdg.front() == '/') {
    return std::filesystem::path(xdg) / "gpuwatch" / "runs.db";
  }
  if (auto home = env("HOME"); !home.empty()) {
    return std::filesystem::path(home) / ".local" / "share" / "gpuwatch" / "runs.db";
  }
  throw StoreError("cannot find the run store: set GPUWATCH_STORE, XDG_DATA_HOME or HOME, or pass --store");
}

namespace {

std::mutex procfs_root_mutex;
std::filesystem::path& store_procfs_root() {
  static std::filesystem::path root = "/proc";
  return root;
}

}  // namespace

void set_store_procfs_root(std::filesystem::path root) {
  const std::lock_guard lock(procfs_root_mutex);
  store_procfs_root() = std::move(root);
}

HostIdentity HostIdentity::current() {
  HostIdentity id;
  id.host = host_name();
  {
    const std::lock_guard lock(procfs_root_mutex);
    id.procfs_root = store_procfs_root();
  }
  id.boot_id = read_boot_id(id.procfs_root);
  id.self = current_process(id.procfs_root);
  return id;
}

bool recorder_alive(const RunInfo& run, RecorderLock lock, const HostIdentity& here, std::int64_t now_wall_ns) {
  if (lock != RecorderLock::Unknown) return lock == RecorderLock::Held;
  const bool fresh = run.heartbeat_wall_ns > 0 && now_wall_ns - run.heartbeat_wall_ns < kHeartbeatTimeoutNs;
  if (run.host.empty() || run.host != here.host) return fresh;
  // After a reboot the pid may belong to anything, and the recorder is gone.
  if (!run.recorder_boot_id.empty() && !here.boot_id.empty() && run.recorder_boot_id != here.boot_id) return false;
  if (fresh) return true;  // its pid may be another PID namespace's
  if (run.recorder_pid <= 0 || run.recorder_pid > kMaxPid) return false;
  return process_alive(here.procfs_root,
                       {static_cast<std::uint32_t>(run.recorder_pid), run.recorder_start_ticks});
}

namespace {

// Touches the file so that SQLite sets up its WAL index; returns SQLite's
// code rather than throwing, because the caller decides how to recover.
int probe(sqlite3* db) {
  sqlite3_stmt* st = nullptr;
  int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, nullptr);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

std::string immutable_uri(const std::filesystem::path& path) {
  std::string uri = "file:";
  for (const char c : path.string()) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

bool wal_in_use(const std::filesystem::path& path) {
  std::error_code ec;
  const auto wal = std::filesystem::path(path.string() + "-wal");
  return std::filesystem::exists(wal, ec) && std::filesystem::file_size(wal, ec) > 0;
}

// A folder named where a store file belongs (--store, GPUWATCH_STORE):
// SQLite would call it a "disk I/O error".
void refuse_folder(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw StoreError(fmt::format("the run store {} is a folder; name a store file (such as {}) instead",
                                 path.string(), (path / "runs.db").string()));
  }
}

std::string why_not(int err) { return std::strerror(err); }

sql::Db open_read_only(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw StoreError(fmt::format("no run store at {}: nothing recorded yet (record a run, or pass --store)",
                                 path.string()));
  }
  refuse_folder(path);
  if (::access(path.c_str(), R_OK) != 0) {
    throw StoreError(fmt::format("cannot read the run store {}: {}", path.string(), why_not(errno)));
  }
  sql::Db db = sql::open(path.string(), SQLITE_OPEN_READONLY, path);
  int rc = SQLITE_OK;
  // A writer that is just opening or recovering the WAL makes a read-only
  // connection fail briefly; it settles within milliseconds.
  for (int attempt = 0; attempt < 40; ++attempt) {
    rc = probe(db.get());
    const int primary = rc & 0xff;
    if (primary != SQLITE_BUSY && rc != SQLITE_READONLY_RECOVERY && rc != SQLITE_READONLY_CANTINIT) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (rc == SQLITE_OK) return db;
  // A read-only connection cannot create the -shm file (e.g. the directory
  // is not ours). With no WAL content there is no writer either, so the file
  // alone is the whole truth and may be read as immutable.
  if (!wal_in_use(path)) {
    sql::Db frozen = sql::open(immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path);
    if (probe(frozen.get()) == SQLITE_OK) return frozen;
  }
  throw StoreError(fmt::format("cannot read the run store {}: {}{}", path.string(), sqlite3_errstr(rc),
                               wal_in_use(path) ? " (it is being written and its -shm file cannot be opened)"
                                                : ""));
}

// SQLite creates the -wal and -shm files beside the store when they are not
// there: the folder must let this user create files, or SQLite fails with
// "unable to open database file".
void check_folder_writable(const std::filesystem::path& path) {
  std::error_code ec;
  const bool companions = std::filesystem::exists(path.string() + "-wal", ec) &&
                          std::filesystem::exists(path.string() + "-shm", ec);
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  if (!companions && ::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw StoreError(fmt::format("cannot write the run store {}: its folder {} does not let this user create the "
                                 "store's -wal and -shm files ({})",
                                 path.string(), folder.string(), why_not(errno)));
  }
}

// Checks, before SQLite is asked, what would keep a writer from the store at
// `path`, and creates the file when it is not there: owner-only (0600),
// since runs hold command lines and environments; SQLite gives the -wal and
// -shm files the store's mode.
void prepare_for_write(const std::filesystem::path& path) {
  refuse_folder(path);
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      throw StoreError(fmt::format("cannot create the folder {} for the run store {}: {}",
                                   path.parent_path().string(), path.string(), ec.message()));
    }
  }
  if (std::filesystem::exists(path, ec)) {
    if (::access(path.c_str(), R_OK | W_OK) != 0) {
      throw StoreError(fmt::format("cannot write the run store {}: {}", path.string(), why_not(errno)));
    }
  } else {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd >= 0) {
      adopt_store_descriptor(fd);  // kept open: see recorder_lock.h
    } else if (errno != EEXIST) {  // another writer made it first: its mode stands
      throw StoreError(fmt::format("cannot create the run store {}: {}", path.string(), why_not(errno)));
    }
  }
  check_folder_writable(path);
}

sql::Db open_for_write(const std::filesystem::path& path) {
  prepare_for_write(path);
  sql::Db db = sql::open(path.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path);
  // SQLite silently falls back to read-only for a file we may not write.
  if (sqlite3_db_readonly(db.get(), "main") == 1) {
    throw StoreError(fmt::format("the run store {} is not writable by this user", path.string()));
  }
  // Before WAL mode, which writes the file's first page: a new store gives
  // the pages a finished run's compaction frees back to the file system
  // (sqlite_util.h, release_free_pages); without it a store kept them, 43 %
  // of its size (issue 25). An existing store keeps its mode until a VACUUM.
  sql::exec(db.get(), "PRAGMA auto_vacuum = INCREMENTAL");
  sql::Stmt mode(db.get(), "PRAGMA journal_mode = WAL");
  if (!mode.step() || mode.text(0) != "wal") {
    throw StoreError(fmt::format("the run store {} cannot use WAL mode (is it on a network file system?)",
                                 path.string()));
  }
  // NORMAL: a commit survives the process being killed; only a power loss
  // may take the last commits, which is the trade WAL mode is built for.
  sql::exec(db.get(), "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
  return db;
}

// How long a writer keeps retrying an open that SQLite answered with BUSY
// without waiting (two recorders creating the same new store at once).
constexpr auto kOpenRetryFor = std::chrono::seconds(20);

}  // namespace

void Store::open_and_migrate(Impl& impl, std::span<const Migration> migrations) {
  const auto deadline = std::chrono::steady_clock::now() + kOpenRetryFor;
  std::minstd_rand jitter(static_cast<std::uint32_t>(getpid()));
  for (int attempt = 1;; ++attempt) {
    try {
      impl.db = open_for_write(impl.path);
      impl.version = migrate(impl.db.get(), migrations, impl.path.string());
      return;
    } catch (const sql::BusyError&) {
      // Setting up WAL on a new file and recovering a WAL take locks that
      // SQLite does not wait for: another writer is mid-way, and done soon.
      impl.db.reset();
      if (std::chrono::steady_clock::now() >= deadline) throw;
      const int ms = std::min(attempt, 10) * 5 + static_cast<int>(jitter() % 20);
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
  }
}

std::unique_ptr<Store> Store::open(const std::filesystem::path& path, bool read_only) {
  return open(path, read_only, schema_migrations());
}

std::unique_ptr<Store> Store::open(const std::filesystem::path& path, bool read_only,
                                   std::span<const Migration> migrations) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->read_only = read_only;
  const std::string where = path.string();
  try {
    if (read_only) {
      impl->db = open_read_only(path);
      impl->version = read_schema_version(impl->db.get());
      check_readable(impl->version, migrations, where);
      impl->find_optional_columns();
    } else {
      open_and_migrate(*impl, migrations);
      impl->find_optional_columns();
      // A writer stores what it finds: runs whose recorder died are saved as
      // interrupted now rather than recomputed by every reader forever.
      if (impl->runs_have_start_ticks) (void)impl->query_runs("WHERE status = 'recording'");
    }
  } catch (const StoreError& e) {
    const std::string what = e.what();
    if (what.find(where) != std::string::npos) throw;
    throw StoreError(fmt::format("run store {}: {}", where, what));
  }
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Store::~Store() {
  std::lock_guard lock(impl_->db_mutex);
  if (!impl_->recording()) return;
  try {
    impl_->close_run_locked(nullptr);
  } catch (const std::exception&) {
    // Nothing to report to from a destructor; the run will be detected as
    // interrupted once this process is gone.
  }
}

int Store::schema_version() const { return impl_->version; }

void Store::Impl::require_writable() const {
  if (read_only) throw StoreError(fmt::format("the run store {} was opened read-only", path.string()));
}

sql::Stmt& Store::Impl::cached(std::optional<sql::Stmt>& slot, std::string_view sql_text) {
  if (!slot) slot.emplace(db.get(), sql_text);
  return *slot;
}

}  // namespace gpuwatch
