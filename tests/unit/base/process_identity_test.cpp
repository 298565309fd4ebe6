// Telling a live process from a dead one whose pid was reused, over a fake
// procfs tree and over the real /proc.
#include "base/process_identity.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;

// A stat line as the kernel writes it, with a comm that has the characters
// that trip naive parsers.
std::string stat_line(std::uint32_t pid, char state, std::uint64_t start_ticks) {
  std::string line = std::to_string(pid) + " (py ) S (x) " + state + " 1 " + std::to_string(pid);
  for (int field = 6; field <= 21; ++field) line += " 0";
  return line + " " + std::to_string(start_ticks) + " 1000 25 18446744073709551615\n";
}

class FakeProc : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::path(::testing::TempDir()) / "gpuwatch-ident-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { fs::remove_all(root_); }
  void process(std::uint32_t pid, char state, std::uint64_t start) {
    fs::create_directories(root_ / std::to_string(pid));
    std::ofstream(root_ / std::to_string(pid) / "stat") << stat_line(pid, state, start);
  }
  fs::path root_;
};

TEST_F(FakeProc, StartTimeTellsAReusedPidApart) {
  process(123, 'S', 5000);
  EXPECT_EQ(process_start_ticks(root_, 123), 5000u);
  EXPECT_TRUE(process_alive(root_, {123, 5000}));
  EXPECT_FALSE(process_alive(root_, {123, 4999}));  // the pid now names another process
  EXPECT_TRUE(process_alive(root_, {123, std::nullopt}));  // no start time stored: the pid decides
  EXPECT_FALSE(process_alive(root_, {124, 5000}));
  EXPECT_FALSE(process_alive(root_, {124, std::nullopt}));
  EXPECT_FALSE(process_alive(root_, {0, std::nullopt}));
}

TEST_F(FakeProc, ZombieIsDeadAndUnreadableStatIsAlive) {
  process(77, 'Z', 10);
  EXPECT_FALSE(process_alive(root_, {77, 10}));
  // Only what can be proven dead is dead: an entry whose stat is missing
  // or garbled is left alone.
  fs::create_directories(root_ / "78");
  EXPECT_TRUE(process_alive(root_, {78, 10}));
  process(79, 'S', 10);
  std::ofstream(root_ / "79" / "stat") << "garbage";
  EXPECT_TRUE(process_alive(root_, {79, 11}));
  // A stat that names another pid is not this process's start time.
  process(80, 'S', 10);
  std::ofstream(root_ / "80" / "stat") << stat_line(81, 'S', 10);
  EXPECT_EQ(process_start_ticks(root_, 80), std::nullopt);
}

TEST_F(FakeProc, BootIdUnderTheRoot) {
  EXPECT_EQ(read_boot_id(root_), "");
  fs::create_directories(root_ / "sys" / "kernel" / "random");
  std::ofstream(root_ / "sys" / "kernel" / "random" / "boot_id") << "1b2c-3d\n";
  EXPECT_EQ(read_boot_id(root_), "1b2c-3d");
}

TEST(ProcessIdentity, ThisProcessOnTheRealProc) {
  const ProcessIdentity self = current_process("/proc");
  EXPECT_EQ(self.pid, static_cast<std::uint32_t>(getpid()));
  ASSERT_TRUE(self.start_ticks.has_value());
  EXPECT_TRUE(process_alive("/proc", self));
  EXPECT_FALSE(process_alive("/proc", {self.pid, *self.start_ticks + 1}));
  EXPECT_FALSE(read_boot_id("/proc").empty());
}

TEST(ProcessIdentity, ParsePidTakesOnlyPositiveWholeNumbers) {
  EXPECT_EQ(parse_pid("1"), 1u);
  EXPECT_EQ(parse_pid("4194304"), 4194304u);
  EXPECT_EQ(parse_pid("2147483647"), 2147483647u);
  for (const char* bad : {"", "0", "-1", "+1", "abc", " 1", "1 ", "1.0", "0x10", "2147483648", "99999999999",
                          "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589"}) {
    EXPECT_EQ(parse_pid(bad), std::nullopt) << bad;
  }
}

TEST(ProcessIdentity, StateComesAfterTheLastParenthesis) {
  EXPECT_EQ(parse_pid_state(stat_line(5, 'Z', 1)), 'Z');
  EXPECT_EQ(parse_pid_state("5 (a) R) S 1"), 'S');
  EXPECT_EQ(parse_pid_state("5 (a)"), std::nullopt);
  EXPECT_EQ(parse_pid_state("no parenthesis"), std::nullopt);
}

}  // namespace
}  // namespace gpuwatch
