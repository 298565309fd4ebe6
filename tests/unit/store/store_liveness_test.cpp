// A recorder whose pid means nothing to the readers (one in a container or
// another PID namespace on the same host) is proven alive by its lock: it is
// listed as recording, no writer marks it interrupted, rm refuses it, and its
// run ends finished with every sample. Its death is proven as fast.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "base/process_identity.h"
#include "store/recorder_lock.h"
#include "store/store_delete.h"
#include "store_test_util.h"

namespace gpuwatch::store_test {
namespace {

constexpr int kSamplesBefore = 10;
constexpr int kSamplesAfter = 7;

class StoreLiveness : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    // A procfs that shows this boot but no process at all: every recorder's
    // pid is invisible here, as a container's is to the host.
    procfs_ = dir_ / "procfs";
    fs::create_directories(procfs_ / "sys" / "kernel" / "random");
    std::ofstream(procfs_ / "sys" / "kernel" / "random" / "boot_id") << read_boot_id("/proc") << "\n";
    ASSERT_EQ(pipe(ready_), 0);
    ASSERT_EQ(pipe(go_), 0);
  }
  void TearDown() override {
    set_store_procfs_root("/proc");
    for (int fd : {ready_[0], ready_[1], go_[0], go_[1]}) close(fd);
    if (child_ > 0) {
      kill(child_, SIGKILL);
      waitpid(child_, nullptr, 0);
    }
    StoreTest::TearDown();
  }

  // A recorder in a child: begins "boxed", commits kSamplesBefore samples,
  // says so on `ready_`, then waits for a byte on `go_`: 'f' finishes the
  // run after kSamplesAfter more samples, 'k' dies of SIGKILL.
  void start_recorder() {
    child_ = fork();
    if (child_ != 0) {
      char c = 0;
      ASSERT_EQ(read(ready_[0], &c, 1), 1);
      return;
    }
    try {
      auto store = Store::open(path_, false);
      RunInfo run = new_run("boxed");
      store->begin_run(run, two_devices());
      for (int i = 0; i < kSamplesBefore; ++i) store->append(device_sample(0, i));
      store->flush();
      (void)!write(ready_[1], "r", 1);
      char what = 0;
      if (read(go_[0], &what, 1) != 1 || what == 'k') raise(SIGKILL);
      for (int i = kSamplesBefore; i < kSamplesBefore + kSamplesAfter; ++i) store->append(device_sample(0, i));
      run.exit_code = 0;
      store->finish_run(run);
      _exit(0);
    } catch (...) {
      _exit(1);
    }
  }

  int tell_recorder(char what) {
    (void)!write(go_[1], &what, 1);
    int status = 0;
    waitpid(child_, &status, 0);
    child_ = 0;
    return status;
  }

  // Readers from here on see the procfs without the recorder.
  void hide_the_recorder() { set_store_procfs_root(procfs_); }

  fs::path procfs_;
  int ready_[2] = {-1, -1};
  int go_[2] = {-1, -1};
  pid_t child_ = 0;
};

TEST_F(StoreLiveness, ARecorderWhosePidIsInvisibleIsRecordingUntilItFinishes) {
  start_recorder();
  hide_the_recorder();
  RawDb raw(path_);
  ASSERT_NE(raw.text("SELECT recorder_lock FROM runs"), "<null>");
  // However old its heartbeat: the lock, not the heartbeat, says it lives.
  ASSERT_TRUE(raw.exec("UPDATE runs SET heartbeat_wall_ns = heartbeat_wall_ns - 3600000000000"));
  EXPECT_EQ(Store::open(path_, true)->resolve("boxed").status, RunStatus::Recording);
  // The next writer leaves it alone, and rm refuses it.
  EXPECT_EQ(Store::open(path_, false)->resolve("boxed").status, RunStatus::Recording);
  EXPECT_EQ(raw.text("SELECT status FROM runs"), "recording");
  const std::string id = raw.text("SELECT public_id FROM runs");
  EXPECT_THROW(delete_runs(path_, {id}, false), StoreError);

  const int status = tell_recorder('f');
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto reader = Store::open(path_, true);
  const RunInfo done = reader->resolve("boxed");
  EXPECT_EQ(done.status, RunStatus::Finished);
  EXPECT_EQ(reader->load(done).devices.at(0).mono_ns.size(), static_cast<std::size_t>(kSamplesBefore + kSamplesAfter));
}

TEST_F(StoreLiveness, AKilledRecorderWhosePidIsInvisibleIsInterruptedAtOnce) {
  start_recorder();
  const int status = tell_recorder('k');
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  hide_the_recorder();
  // Its heartbeat is fresh, but the kernel dropped its lock: proof of death.
  auto reader = Store::open(path_, true);
  const RunInfo r = reader->resolve("boxed");
  EXPECT_EQ(r.status, RunStatus::Interrupted);
  EXPECT_EQ(reader->load(r).devices.at(0).mono_ns.size(), static_cast<std::size_t>(kSamplesBefore));
  (void)Store::open(path_, false);
  RawDb raw(path_);
  EXPECT_EQ(raw.text("SELECT status FROM runs"), "interrupted");
}

TEST_F(StoreLiveness, AFinishedRunsLockIsGivenBack) {
  auto writer = Store::open(path_, false);
  RunInfo run = new_run("done");
  writer->begin_run(run, {});
  RawDb raw(path_);
  const std::string offset = raw.text("SELECT recorder_lock FROM runs");
  ASSERT_NE(offset, "<null>");
  writer->finish_run(run);
  EXPECT_EQ(probe_recorder_lock(path_, std::stoll(offset)), RecorderLock::Free);
  // Another run of this process takes the next row's byte; the first is free.
  RunInfo next = new_run("next");
  writer->begin_run(next, {});
  EXPECT_NE(raw.text("SELECT recorder_lock FROM runs WHERE name = 'next'"), offset);
  EXPECT_EQ(Store::open(path_, true)->resolve("next").status, RunStatus::Recording);
  EXPECT_EQ(Store::open(path_, true)->resolve("done").status, RunStatus::Finished);
}

}  // namespace
}  // namespace gpuwatch::store_test
