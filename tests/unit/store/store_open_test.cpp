// Opening the store: location, modes, foreign files, schema migration.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>

#include "store/command_json.h"
#include "store/schema.h"
#include "store/store.h"
#include "store_test_util.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;
using store_test::RawDb;
using StoreOpenTest = store_test::StoreTest;

TEST_F(StoreOpenTest, OpenCreatesDirectoriesAndUsesWal) {
  auto store = Store::open(path_, false);
  EXPECT_TRUE(fs::exists(path_));
  EXPECT_EQ(store->schema_version(), current_schema_version());
  RawDb raw(path_);
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw.text("SELECT value FROM meta WHERE key = 'schema_version'"), std::to_string(current_schema_version()));
}

TEST_F(StoreOpenTest, DefaultStorePathFollowsEnvironment) {
  std::map<std::string, std::string> env{{"GPUWATCH_STORE", "/s/runs.db"}, {"XDG_DATA_HOME", "/x"}, {"HOME", "/h"}};
  const EnvironmentLookup lookup = [&env](const char* name) -> std::optional<std::string> {
    const auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  EXPECT_EQ(default_store_path(lookup), fs::path("/s/runs.db"));
  env.erase("GPUWATCH_STORE");
  EXPECT_EQ(default_store_path(lookup), fs::path("/x/gpuwatch/runs.db"));
  env["XDG_DATA_HOME"] = "relative";
  EXPECT_EQ(default_store_path(lookup), fs::path("/h/.local/share/gpuwatch/runs.db"));
  env.erase("XDG_DATA_HOME");
  EXPECT_EQ(default_store_path(lookup), fs::path("/h/.local/share/gpuwatch/runs.db"));
}

TEST_F(StoreOpenTest, ReadOnlyStoreRefusesWritesAndMissingFileIsClear) {
  try {
    (void)Store::open(path_, true);
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("no run store"), std::string::npos) << e.what();
  }
  { auto init = Store::open(path_, false); }
  auto store = Store::open(path_, true);
  RunInfo run = new_run("x");
  EXPECT_THROW(store->begin_run(run, {}), StoreError);
  EXPECT_THROW(store->flush(), StoreError);
  EXPECT_TRUE(store->list_runs().empty());
}

TEST_F(StoreOpenTest, ReadOnlyOpenWithoutShmInAReadOnlyDirectory) {
  {
    auto store = Store::open(path_, false);
    RunInfo run = new_run("frozen");
    store->begin_run(run, {});
    store->finish_run(run);
  }
  // The last writer closed: no -wal, no -shm. A reader that may not create
  // them (another user's store) must still read the file. Root ignores the
  // directory's mode, so only an unprivileged run exercises the fallback.
  EXPECT_FALSE(fs::exists(path_.string() + "-wal"));
  fs::permissions(path_.parent_path(), fs::perms::owner_read | fs::perms::owner_exec);
  try {
    auto store = Store::open(path_, true);
    EXPECT_EQ(store->resolve("frozen").status, RunStatus::Finished);
  } catch (const StoreError& e) {
    ADD_FAILURE() << e.what();
  }
  fs::permissions(path_.parent_path(), fs::perms::owner_all);
}

TEST_F(StoreOpenTest, ForeignDatabaseIsRejected) {
  fs::create_directories(path_.parent_path());
  {
    RawDb raw(dir_ / "other.db");
  }
  sqlite3* db = nullptr;
  sqlite3_open((dir_ / "other.db").c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE photos (x)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  for (const bool ro : {false, true}) {
    try {
      (void)Store::open(dir_ / "other.db", ro);
      FAIL();
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find("not a gpuwatch run store"), std::string::npos) << e.what();
    }
  }
}

// --- the file's mode and the path's problems ---

TEST_F(StoreOpenTest, ANewStoreAndItsWalAndShmAreOwnerOnly) {
  const mode_t old_umask = umask(022);
  auto store = Store::open(path_, false);
  RunInfo run = new_run("private");
  store->begin_run(run, {});
  store->flush();
  umask(old_umask);
  for (const std::string suffix : {"", "-wal", "-shm"}) {
    struct stat st {};
    ASSERT_EQ(stat((path_.string() + suffix).c_str(), &st), 0) << suffix;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << "runs.db" << suffix;
  }
}

// The message `open` fails with, or "" when it succeeds.
template <typename Open>
std::string failure_of(Open open) {
  try {
    open();
  } catch (const StoreError& e) {
    return e.what();
  }
  return "";
}

TEST_F(StoreOpenTest, AFolderOrAFileInThePathIsNamedNotADiskIoError) {
  fs::create_directories(path_);  // a folder where the store file belongs
  for (const bool ro : {false, true}) {
    const std::string why = failure_of([&] { (void)Store::open(path_, ro); });
    EXPECT_NE(why.find(path_.string() + " is a folder"), std::string::npos) << why;
  }
  std::ofstream(dir_ / "plain") << "x";
  const fs::path under_a_file = dir_ / "plain" / "sub" / "runs.db";
  const std::string why = failure_of([&] { (void)Store::open(under_a_file, false); });
  EXPECT_NE(why.find("cannot create the folder " + under_a_file.parent_path().string()), std::string::npos) << why;
  EXPECT_NE(why.find("Not a directory"), std::string::npos) << why;
}

// What Store::open says when this user is not allowed what it needs: as
// root, in a child that becomes nobody (root may write anything); else as
// this user. "" when it succeeds.
std::string failure_as_nobody(const fs::path& path, bool read_only) {
  int out[2];
  if (pipe(out) != 0) return "<pipe>";
  const pid_t child = fork();
  if (child == 0) {
    close(out[0]);
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
    const std::string why = failure_of([&] { (void)Store::open(path, read_only); });
    (void)!write(out[1], why.data(), why.size());
    _exit(0);
  }
  close(out[1]);
  std::string why;
  char buf[512];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) why.append(buf, static_cast<std::size_t>(n));
  close(out[0]);
  waitpid(child, nullptr, 0);
  return why;
}

TEST_F(StoreOpenTest, PermissionProblemsSayPermissionDeniedWithThePath) {
  { (void)Store::open(path_, false); }
  const fs::path folder = path_.parent_path();
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec);
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::others_read |
                              fs::perms::others_exec);
  auto expect = [](const std::string& why, const std::string& what) {
    EXPECT_NE(why.find(what), std::string::npos) << why;
    EXPECT_NE(why.find("Permission denied"), std::string::npos) << why;
    EXPECT_EQ(why.find("unable to open"), std::string::npos) << why;
  };
  // A store this user may read but not write.
  fs::permissions(path_, fs::perms::owner_read | fs::perms::others_read);
  expect(failure_as_nobody(path_, false), "cannot write the run store " + path_.string());
  // No store yet, in a folder this user may not create files in.
  expect(failure_as_nobody(folder / "new.db", false), "cannot create the run store " + (folder / "new.db").string());
  // A store this user may write, in such a folder: no -wal and -shm.
  fs::permissions(path_, fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read |
                             fs::perms::others_write);
  expect(failure_as_nobody(path_, false), "its folder " + folder.string());
  // A store this user may not read.
  fs::permissions(path_, fs::perms::none);
  expect(failure_as_nobody(path_, true), "cannot read the run store " + path_.string());
  fs::permissions(folder, fs::perms::owner_all);
}

// --- schema migration ---

constexpr std::string_view kV2 = R"sql(
  ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT 'migrated';
  CREATE TABLE extra (x INTEGER);
)sql";

TEST_F(StoreOpenTest, OldSchemaIsMigratedInOneTransactionOnWriteOpen) {
  {
    auto v1 = Store::open(path_, false);
    RunInfo run = new_run("before");
    v1->begin_run(run, {});
    v1->finish_run(run);
  }
  // This build's steps, and one more that a newer build would bring.
  const int now = current_schema_version();
  const int next = now + 1;
  const auto with = [](const Migration& step) {
    std::vector<Migration> steps(schema_migrations().begin(), schema_migrations().end());
    steps.push_back(step);
    return steps;
  };
  const std::vector<Migration> steps = with(Migration{next, kV2, false});

  // A reader of the newer build cannot read v1 when step 2 is required.
  try {
    (void)Store::open(path_, true, steps);
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("run any write command"), std::string::npos) << e.what();
  }
  // A step the readers can do without: v1 is read as is.
  const std::vector<Migration> optional_steps = with(Migration{next, kV2, true});
  EXPECT_EQ(Store::open(path_, true, optional_steps)->resolve("before").name, "before");

  // A failing step leaves the file as it was.
  const std::vector<Migration> broken = with(Migration{next, "CREATE TABLE half (x); SELEKT nonsense;", false});
  EXPECT_THROW((void)Store::open(path_, false, broken), StoreError);
  RawDb raw(path_);
  EXPECT_EQ(raw.text("SELECT value FROM meta WHERE key = 'schema_version'"), std::to_string(now));
  EXPECT_EQ(raw.text("SELECT name FROM sqlite_master WHERE name = 'half'"), "<none>");

  auto v2 = Store::open(path_, false, steps);
  EXPECT_EQ(v2->schema_version(), next);
  EXPECT_EQ(raw.text("SELECT value FROM meta WHERE key = 'schema_version'"), std::to_string(next));
  EXPECT_EQ(raw.text("SELECT note FROM runs WHERE name = 'before'"), "migrated");
  EXPECT_EQ(v2->resolve("before").status, RunStatus::Finished);
  v2.reset();

  // This build does not know `next`: the newer file is refused, read or write.
  for (const bool ro : {true, false}) {
    try {
      (void)Store::open(path_, ro);
      FAIL();
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find("newer gpuwatch"), std::string::npos) << e.what();
    }
  }
}

TEST(CommandJson, RoundTripsAndRejectsMalformed) {
  const std::vector<std::string> argv{"a b", "\"q\"", "back\\slash", "nl\n", "\x7f\x1f", "", "ünï€😀", "\xff\xfe",
                                      "\u202e\xc2\x9b"};
  EXPECT_EQ(decode_argv_json(encode_argv_json(argv)), argv);
  EXPECT_EQ(encode_argv_json({}), "[]");
  EXPECT_EQ(decode_argv_json(" [ ] "), std::vector<std::string>{});
  EXPECT_EQ(decode_argv_json(R"(["\u00e9\ud83d\ude00\/"])"), std::vector<std::string>{"é😀/"});
  for (const char* bad : {"", "[", "[\"a\"", "[\"a\",]", "[1]", "[\"a\"] x", "[\"\\x\"]", "[\"\\u12\"]", "{}"}) {
    EXPECT_FALSE(decode_argv_json(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace gpuwatch
