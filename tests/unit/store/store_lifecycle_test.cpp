// A run's life at its edges: a recorder whose pid was reused after it died,
// writers that create the store at the same moment, and a disk that fills
// mid-run.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/process_identity.h"
#include "store/schema.h"
#include "store/store.h"
#include "store_test_util.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;
using store_test::RawDb;
using StoreLifecycle = store_test::StoreTest;

// Runs `body` in a child that ends with _exit, as a SIGKILLed recorder
// would: no destructor marks its run interrupted. Returns its exit status.
template <typename Body>
int in_child(Body body) {
  const pid_t child = fork();
  if (child == 0) {
    int code = 1;
    try {
      code = body();
    } catch (...) {
    }
    _exit(code);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(StoreLifecycle, TheRecordersStartTimeIsStored) {
  const ProcessIdentity self = current_process("/proc");
  ASSERT_TRUE(self.start_ticks.has_value());
  auto writer = Store::open(path_, false);
  RunInfo run = new_run("me");
  writer->begin_run(run, {});
  EXPECT_EQ(run.recorder_start_ticks, self.start_ticks);
  RawDb raw(path_);
  EXPECT_EQ(raw.text("SELECT recorder_start_ticks FROM runs"), std::to_string(*self.start_ticks));
  EXPECT_EQ(Store::open(path_, true)->resolve("me").status, RunStatus::Recording);
}

TEST_F(StoreLifecycle, ARecorderWhosePidWasReusedIsInterruptedAndTheNextWriterStoresIt) {
  const ProcessIdentity self = current_process("/proc");
  ASSERT_TRUE(self.start_ticks.has_value());
  // A recorder that died without a word; its pid now names this test
  // process, which started at another time.
  ASSERT_EQ(in_child([&] {
              // Never destroyed: a destructor would mark the run interrupted.
              Store* store = Store::open(path_, false).release();
              RunInfo run = new_run("reused");
              run.recorder_pid = self.pid;
              run.recorder_start_ticks = *self.start_ticks + 7;
              store->begin_run(run, {});
              store->append(host_sample(0, 2));
              store->flush();
              return 0;
            }),
            0);
  RawDb raw(path_);
  ASSERT_EQ(raw.text("SELECT status FROM runs"), "recording");
  // It named another pid than its own, so it took no lock: pid and heartbeat
  // decide, and the heartbeat is no longer fresh.
  ASSERT_EQ(raw.text("SELECT recorder_lock FROM runs"), "<null>");
  ASSERT_TRUE(raw.exec("UPDATE runs SET heartbeat_wall_ns = heartbeat_wall_ns - 60000000000"));
  {
    auto reader = Store::open(path_, true);
    const RunInfo r = reader->resolve("reused");
    EXPECT_EQ(r.status, RunStatus::Interrupted);
    EXPECT_EQ(r.end_wall_ns, r.heartbeat_wall_ns);
  }
  EXPECT_EQ(raw.text("SELECT status FROM runs"), "recording");  // readers change nothing
  // Any writer that opens the store saves what it found, unasked.
  (void)Store::open(path_, false);
  EXPECT_EQ(raw.text("SELECT status FROM runs"), "interrupted");
  EXPECT_EQ(raw.text("SELECT end_reason FROM runs"), "interrupted");
}

TEST_F(StoreLifecycle, AStoreWithoutStartTimesIsReadAndUpgraded) {
  // As gpuwatch wrote it before start times were stored: schema 1 only.
  { (void)Store::open(path_, false, schema_migrations().first(1)); }
  RawDb raw(path_);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  ASSERT_TRUE(raw.exec(fmt::format(
      "INSERT INTO runs (public_id, name, host, start_wall_ns, start_mono_ns, interval_s, status, recorder_pid, "
      "heartbeat_wall_ns) VALUES ('0123456789ab', 'old', '{}', 1, 1, 0.5, 'recording', {}, 1)",
      host, getpid())));
  {
    auto reader = Store::open(path_, true);
    EXPECT_EQ(reader->schema_version(), 1);
    const RunInfo r = reader->resolve("old");
    EXPECT_EQ(r.recorder_start_ticks, std::nullopt);
    EXPECT_EQ(r.status, RunStatus::Recording);  // no start time: its live pid decides
  }
  auto writer = Store::open(path_, false);
  EXPECT_EQ(writer->schema_version(), current_schema_version());
  EXPECT_EQ(raw.text("SELECT recorder_start_ticks FROM runs"), "<null>");
}

TEST_F(StoreLifecycle, TheSlowIntervalIsStoredAndUnknownBeforeSchemaFour) {
  {
    // As gpuwatch wrote it before the slow interval was stored: schema 3.
    auto old = Store::open(path_, false, schema_migrations().first(3));
    RunInfo run = new_run("old");
    run.slow_interval_s = 2;  // nowhere to keep it
    old->begin_run(run, {});
    old->finish_run(run);
  }
  {
    auto reader = Store::open(path_, true);
    const RunInfo r = reader->resolve("old");
    EXPECT_EQ(r.slow_interval_s, 0);
    EXPECT_EQ(r.slow_interval_or_default_s(), 1);  // the sampler's rule at 0.1 s
  }
  auto writer = Store::open(path_, false);
  EXPECT_EQ(writer->resolve("old").slow_interval_s, 0);
  RunInfo run = new_run("bench-like");
  run.interval_s = 0.1;
  run.slow_interval_s = 0.2;
  writer->begin_run(run, {});
  writer->finish_run(run);
  const RunInfo r = Store::open(path_, true)->resolve("bench-like");
  EXPECT_EQ(r.slow_interval_s, 0.2);
  EXPECT_EQ(r.slow_interval_or_default_s(), 0.2);
}

TEST_F(StoreLifecycle, TheJobIsStoredAndAnOlderStoreIsReadAndUpgraded) {
  {
    // As gpuwatch wrote it before jobs were stored: schema 4.
    auto old = Store::open(path_, false, schema_migrations().first(4));
    RunInfo run = new_run("old");
    run.job = JobInfo{"77", "slurm", 0, 0, 2, 0, 2};  // nowhere to keep it
    old->begin_run(run, {});
    // Not finished: a finished run's rollups would migrate the file.
  }
  RawDb raw(path_);
  EXPECT_EQ(raw.text("SELECT value FROM meta WHERE key = 'schema_version'"), "4");
  {
    // This build's reader reads it as it is: no job.
    auto reader = Store::open(path_, true);
    EXPECT_EQ(reader->schema_version(), 4);
    EXPECT_TRUE(reader->resolve("old").job.empty());
  }
  auto writer = Store::open(path_, false);
  EXPECT_EQ(writer->schema_version(), current_schema_version());
  EXPECT_TRUE(writer->resolve("old").job.empty());
  RunInfo run = new_run("node-b");
  run.job = JobInfo{"77", "slurm", 1, 0, 2, 1, 2};
  writer->begin_run(run, {});
  writer->finish_run(run);
  RunInfo alone = new_run("alone");
  writer->begin_run(alone, {});
  writer->finish_run(alone);
  auto reader = Store::open(path_, true);
  EXPECT_EQ(reader->resolve("node-b").job, run.job);
  EXPECT_TRUE(reader->resolve("alone").job.empty());
  EXPECT_EQ(raw.text("SELECT job_id FROM runs WHERE name = 'alone'"), "<null>");
  EXPECT_EQ(raw.text("SELECT job_node_rank FROM runs WHERE name = 'node-b'"), "1");
}

TEST_F(StoreLifecycle, WritersCreatingTheStoreTogetherBothSucceed) {
  // Both children open the same new file at the same moment, 20 times over.
  for (int round = 0; round < 20; ++round) {
    const fs::path path = dir_ / fmt::format("race{}.db", round);
    int go[2];
    ASSERT_EQ(pipe(go), 0);
    std::vector<pid_t> children;
    for (int k = 0; k < 2; ++k) {
      const pid_t child = fork();
      if (child == 0) {
        close(go[1]);
        char c = 0;
        (void)!read(go[0], &c, 1);  // returns when the parent closes its end
        try {
          auto store = Store::open(path, false);
          RunInfo run = new_run(fmt::format("writer{}", k));
          store->begin_run(run, {});
          store->finish_run(run);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "writer %d: %s\n", k, e.what());
          _exit(1);
        }
        _exit(0);
      }
      children.push_back(child);
    }
    close(go[0]);
    close(go[1]);  // both children wake up at once
    for (const pid_t child : children) {
      int status = 0;
      waitpid(child, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "round " << round;
    }
    RawDb raw(path);
    EXPECT_EQ(raw.text("SELECT count(*) FROM runs WHERE status = 'finished'"), "2") << "round " << round;
  }
}

// RLIMIT_FSIZE as a full disk: no file this process writes may grow past
// `bytes`; SIGXFSZ is ignored so that writes fail with EFBIG instead.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit lim = saved_;
    lim.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lim);
  }
  ~FileSizeLimit() { lift(); }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  void lift() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  sighandler_t old_handler_ = SIG_DFL;
};

rlim_t file_size(const fs::path& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 ? static_cast<rlim_t>(st.st_size) : 0;
}

// Enough WAL frames (page plus header) for the run's end and a gap event,
// far from enough for the thousands of samples held back.
constexpr rlim_t kRoomForTheEnd = 8 * (4096 + 24);

TEST_F(StoreLifecycle, AFullDiskBoundsTheBufferAndCountsTheGap) {
  auto store = Store::open(path_, false);
  RunInfo run = new_run("full");
  store->begin_run(run, two_devices());
  store->append(device_sample(0, 0));
  store->flush();

  const std::int64_t appended = 3 * static_cast<std::int64_t>(kMaxBufferedBytes / sizeof(DeviceSample));
  StoreBacklog b;
  {
    FileSizeLimit full(file_size(path_.string() + "-wal") + kRoomForTheEnd);
    for (std::int64_t i = 1; i <= appended; ++i) {
      store->append(device_sample(0, i));
      if (i % 20000 == 0) {
        EXPECT_THROW(store->flush(), StoreError);
      }
    }
    EXPECT_THROW(store->flush(), StoreError);
    b = store->backlog();
    EXPECT_LE(b.buffered_bytes, kMaxBufferedBytes);
    EXPECT_GT(b.dropped_samples, 0u);
    EXPECT_LT(b.dropped_samples, static_cast<std::uint64_t>(appended));
  }
  // Space again: what was kept is written, with the gap counted where it is.
  store->flush();
  run.exit_code = 3;
  store->finish_run(run);
  auto reader = Store::open(path_, true);
  const RunData data = reader->load(reader->resolve("full"));
  EXPECT_EQ(data.run.status, RunStatus::Finished);
  EXPECT_EQ(data.run.exit_code, 3);
  EXPECT_EQ(data.devices[0].mono_ns.size(), static_cast<std::size_t>(1 + appended) - b.dropped_samples);
  ASSERT_EQ(data.events.size(), 1u);
  EXPECT_EQ(data.events[0].kind, "store_gap");
  EXPECT_NE(data.events[0].message.find(fmt::format("{} samples", b.dropped_samples)), std::string::npos)
      << data.events[0].message;
  EXPECT_EQ(data.events[0].time.mono_ns, device_sample(0, 1).time.mono_ns);  // where the hole starts
}

TEST_F(StoreLifecycle, AFullDiskStillKeepsTheRunsEndAndExitCode) {
  auto store = Store::open(path_, false);
  RunInfo run = new_run("full-at-end");
  store->begin_run(run, two_devices());
  store->append(device_sample(0, 0));
  store->flush();
  const std::int64_t appended = 20000;
  FileSizeLimit full(file_size(path_.string() + "-wal") + kRoomForTheEnd);
  for (std::int64_t i = 1; i <= appended; ++i) store->append(device_sample(1, i));
  EXPECT_THROW(store->flush(), StoreError);
  run.exit_code = 4;
  run.end_reason = "exited";
  store->finish_run(run);  // the samples do not fit; the end does
  EXPECT_EQ(store->backlog().dropped_samples, static_cast<std::uint64_t>(appended));
  full.lift();

  auto reader = Store::open(path_, true);
  const RunData data = reader->load(reader->resolve("full-at-end"));
  EXPECT_EQ(data.run.status, RunStatus::Finished);
  EXPECT_EQ(data.run.exit_code, 4);
  EXPECT_EQ(data.devices[0].mono_ns.size(), 1u);
  EXPECT_EQ(data.devices[1].mono_ns.size(), 0u);
  ASSERT_EQ(data.events.size(), 1u);
  EXPECT_EQ(data.events[0].kind, "store_gap");
  EXPECT_NE(data.events[0].message.find("20000 samples"), std::string::npos) << data.events[0].message;
}

// No room even for the run's row (issue 25: an incremental store's first
// transaction writes its pointer map too): the run is begun all the same,
// and its row and samples are written once space comes back.
TEST_F(StoreLifecycle, ARunBegunOnAFullDiskIsStoredWhenSpaceComesBack) {
  { Store::open(path_, false); }  // the store exists; only the run meets the full disk
  auto store = Store::open(path_, false);
  RunInfo run = new_run("begun-full");
  {
    FileSizeLimit full(file_size(path_.string() + "-wal"));
    EXPECT_FALSE(store->begin_run(run, two_devices()).empty());
    EXPECT_EQ(run.row_id, 0);
    for (std::int64_t i = 0; i < 100; ++i) store->append(device_sample(0, i));
    EXPECT_THROW(store->flush(), StoreError);
  }
  store->flush();
  run.exit_code = 6;
  store->finish_run(run);
  auto reader = Store::open(path_, true);
  const RunData data = reader->load(reader->resolve(run.id));
  EXPECT_EQ(data.run.status, RunStatus::Finished);
  EXPECT_EQ(data.run.exit_code, 6);
  EXPECT_EQ(data.devices[0].mono_ns.size(), 100u);
}

TEST_F(StoreLifecycle, ARunThatNeverFindsRoomSaysNothingOfItIsStored) {
  { Store::open(path_, false); }
  auto store = Store::open(path_, false);
  RunInfo run = new_run("never-stored");
  FileSizeLimit full(file_size(path_.string() + "-wal"));
  store->begin_run(run, two_devices());
  store->append(device_sample(0, 0));
  EXPECT_THROW(store->finish_run(run), RunNotStoredError);
  full.lift();
  EXPECT_TRUE(Store::open(path_, true)->list_runs().empty());
}

}  // namespace
}  // namespace gpuwatch
