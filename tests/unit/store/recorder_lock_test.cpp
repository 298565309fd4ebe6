// The recorder's lock: held while its holder lives, seen by this process and
// others, gone when the holder dies.
#include "store/recorder_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "store_test_util.h"

namespace gpuwatch {
namespace {

using RecorderLockTest = store_test::StoreTest;

// What another process sees (probes ask through a read-only descriptor) at `offset` of `path`, as the child's exit code.
RecorderLock probe_from_child(const std::filesystem::path& path, std::int64_t offset) {
  const pid_t child = fork();
  if (child == 0) _exit(static_cast<int>(probe_recorder_lock(path, offset)));
  int status = 0;
  waitpid(child, &status, 0);
  return static_cast<RecorderLock>(WEXITSTATUS(status));
}

TEST_F(RecorderLockTest, HeldUntilReleasedAndSeenFromThisProcessAndAnother) {
  std::filesystem::create_directories(path_.parent_path());
  std::ofstream(path_) << "";
  std::optional<HeldRecorderLock> lock = take_recorder_lock(path_, 5);
  ASSERT_TRUE(lock.has_value());
  EXPECT_EQ(lock->offset(), kRecorderLockBase + 5);
  EXPECT_EQ(probe_recorder_lock(path_, lock->offset()), RecorderLock::Held);
  EXPECT_EQ(probe_from_child(path_, lock->offset()), RecorderLock::Held);
  EXPECT_EQ(probe_recorder_lock(path_, kRecorderLockBase + 6), RecorderLock::Free);
  EXPECT_EQ(probe_recorder_lock(dir_ / "missing.db", lock->offset()), RecorderLock::Unknown);
  EXPECT_EQ(std::filesystem::file_size(path_), 0u);  // locking a byte does not grow the file

  // A second run of the same row id (one deleted with --force, its recorder
  // still running) gets another byte.
  std::optional<HeldRecorderLock> again = take_recorder_lock(path_, 5);
  ASSERT_TRUE(again.has_value());
  EXPECT_NE(again->offset(), lock->offset());

  const std::int64_t offset = lock->offset();
  lock.reset();
  EXPECT_EQ(probe_recorder_lock(path_, offset), RecorderLock::Free);
  EXPECT_EQ(probe_from_child(path_, offset), RecorderLock::Free);
}

TEST_F(RecorderLockTest, DroppedWhenTheHolderIsKilled) {
  std::filesystem::create_directories(path_.parent_path());
  std::ofstream(path_) << "";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  if (child == 0) {
    const auto lock = take_recorder_lock(path_, 9);
    const char c = lock ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    pause();
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  EXPECT_EQ(probe_recorder_lock(path_, kRecorderLockBase + 9), RecorderLock::Held);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(probe_recorder_lock(path_, kRecorderLockBase + 9), RecorderLock::Free);
  close(ready[0]);
  close(ready[1]);
}

}  // namespace
}  // namespace gpuwatch
