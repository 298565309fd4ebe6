// Opening the store: location, modes, foreign files, schema migration.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>

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
  auto saved = [](const char* n) -> std::optional<std::string> {
    const char* v = std::getenv(n);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const auto store = saved("GPUWATCH_STORE"), xdg = saved("XDG_DATA_HOME"), home = saved("HOME");
  setenv("GPUWATCH_STORE", "/s/runs.db", 1);
  setenv("XDG_DATA_HOME", "/x", 1);
  setenv("HOME", "/h", 1);
  EXPECT_EQ(default_store_path(), fs::path("/s/runs.db"));
  unsetenv("GPUWATCH_STORE");
  EXPECT_EQ(default_store_path(), fs::path("/x/gpuwatch/runs.db"));
  setenv("XDG_DATA_HOME", "relative", 1);
  EXPECT_EQ(default_store_path(), fs::path("/h/.local/share/gpuwatch/runs.db"));
  unsetenv("XDG_DATA_HOME");
  EXPECT_EQ(default_store_path(), fs::path("/h/.local/share/gpuwatch/runs.db"));
  auto restore = [](const char* n, const std::optional<std::string>& v) {
    if (v) setenv(n, v->c_str(), 1);
    else unsetenv(n);
  };
  restore("GPUWATCH_STORE", store);
  restore("XDG_DATA_HOME", xdg);
  restore("HOME", home);
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
  const std::vector<std::string> argv{"a b", "\"q\"", "back\\slash", "nl\n", "\x7f\x1f", "", "ünï€😀", "\xff\xfe"};
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
