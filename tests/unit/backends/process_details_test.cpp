// The parsers behind a top-like process table, and ProcessDetailsReader over a
// fake procfs tree and over the real /proc. File layouts follow proc(5); the
// stat, status and cmdline texts are copies of real processes' files (a
// python training job, kthreadd) with the numbers the tests need.
#include "backends/procfs/process_details.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;  // "a\0b"s keeps its NULs

constexpr long kHz = 100;
constexpr long kPage = 4096;

Timestamp at(double seconds) {
  const auto ns = std::llround(seconds * 1e9);
  return Timestamp{ns, 1'764'080'000'000'000'000 + ns};
}

// Fields 1-24 of /proc/PID/stat as a python process's, with the ones read
// here (utime 14, stime 15, starttime 22, rss 24) passed in.
std::string stat_line(std::uint32_t pid, const std::string& comm, std::uint64_t utime,
                      std::uint64_t stime, std::uint64_t start, std::uint64_t rss_pages) {
  const auto p = std::to_string(pid);
  return p + " (" + comm + ") S 4100 " + p + " 4100 34816 " + p + " 4194304 25436 0 3 0 " +
         std::to_string(utime) + " " + std::to_string(stime) + " 0 0 20 0 9 0 " +
         std::to_string(start) + " 8589934592 " + std::to_string(rss_pages) +
         " 18446744073709551615 94064343711744 94064346594353 140736414656800 0 0 0 0 16781312"
         " 134235650 0 0 0 17 1 0 0 0 0 0\n";
}

// The head of a real /proc/PID/status; Uid is real, effective, saved, fs.
std::string status_text(const std::string& uid) {
  return "Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nNgid:\t0\n"
         "Pid:\t4242\nPPid:\t4100\nTracerPid:\t0\nUid:\t" + uid + "\nGid:\t1000\t1000\t1000\t1000\n"
         "FDSize:\t256\nGroups:\t27 1000 \nVmRSS:\t  204800 kB\nThreads:\t9\n";
}

// --- parse_status_uid ---

TEST(ProcessStatusParse, RealUidIsTheFirstOfTheUidLine) {
  EXPECT_EQ(parse_status_uid(status_text("1000\t1001\t1002\t1003")), 1000u);
  EXPECT_EQ(parse_status_uid(status_text("0\t0\t0\t0")), 0u);
  EXPECT_EQ(parse_status_uid(status_text("4294967295\t0\t0\t0")), 4294967295u);
  EXPECT_EQ(parse_status_uid("Uid: 7"), 7u);  // no newline at the end
}

TEST(ProcessStatusParse, OnlyALineThatStartsWithUid) {
  EXPECT_EQ(parse_status_uid("Name:\tUid:\t5\nUid:\t6\t6\t6\t6\n"), 6u);
}

TEST(ProcessStatusParse, Malformed) {
  for (const std::string& text :
       {""s, "Name:\tpython3\nGid:\t1000\t1000\t1000\t1000\n"s, "Uid:\n"s, "Uid:\tabc\t0\t0\t0\n"s,
        "Uid:\t-1\t0\t0\t0\n"s, "Uid:\t4294967296\t0\t0\t0\n"s, "Uid:\t12x\t0\n"s,
        "\x01\x02\xff garbage"s, "uid:\t5\n"s}) {
    EXPECT_FALSE(parse_status_uid(text)) << text;
  }
}

// --- parse_cmdline ---

TEST(ProcessCmdlineParse, ArgumentsJoinedBySpaces) {
  EXPECT_EQ(parse_cmdline("python3\0train.py\0--lr\0000.1\0"s), "python3 train.py --lr 0.1");
  EXPECT_EQ(parse_cmdline("python3\0train.py"s), "python3 train.py");  // no trailing NUL
  EXPECT_EQ(parse_cmdline("a\0\0b\0"s), "a  b");  // an empty argument stays visible
  // setproctitle pads the rewritten title with NULs.
  EXPECT_EQ(parse_cmdline("postgres: writer   \0\0\0\0\0\0"s), "postgres: writer   ");
}

TEST(ProcessCmdlineParse, EmptyStaysEmpty) {
  EXPECT_EQ(parse_cmdline(""), "");
  EXPECT_EQ(parse_cmdline("\0\0\0"s), "");
  EXPECT_EQ(parse_cmdline("abc", 0), "");
}

TEST(ProcessCmdlineParse, ControlCharactersAndBrokenUtf8BecomeQuestionMarks) {
  EXPECT_EQ(parse_cmdline("a\tb\nc\x1b[31md\x7f"), "a?b?c?[31md?");
  EXPECT_EQ(parse_cmdline("x\xC2\x9B" "2J"), "x?2J");  // C1 CSI
  EXPECT_EQ(parse_cmdline("caf\xC3\xA9 \xE6\x97\xA5"), "caf\xC3\xA9 \xE6\x97\xA5");
  EXPECT_EQ(parse_cmdline("a\xff" "b\xC3"), "a?b?");
  // Bidirectional overrides (U+202E) and isolates (U+2066) would reorder the row.
  EXPECT_EQ(parse_cmdline("run\xE2\x80\xAE" "yp.niart \xE2\x81\xA6" "x\xE2\x81\xA9"), "run?yp.niart ?x?");
  EXPECT_EQ(parse_cmdline("a\xE2\x80\x94" "b"), "a\xE2\x80\x94" "b");  // an em dash is text
}

TEST(ProcessCmdlineParse, CutBetweenCharacters) {
  EXPECT_EQ(parse_cmdline("abcdefg", 5), "abcde");
  EXPECT_EQ(parse_cmdline("abcd\xC3\xA9", 5), "abcd");
  EXPECT_EQ(parse_cmdline("abcd\xC3\xA9", 6), "abcd\xC3\xA9");
  const std::string huge(100000, 'x');
  EXPECT_EQ(parse_cmdline(huge).size(), 4096u);
}

// --- ProcessDetailsReader over a fake procfs ---

class ProcessDetailsTest : public ::testing::Test {
 protected:
  ~ProcessDetailsTest() override { fs::remove_all(root_); }

  static fs::path make_root() {
    std::string tmpl = (fs::path(::testing::TempDir()) / "gpuwatch-details-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    return tmpl;
  }

  void write(std::uint32_t pid, const std::string& leaf, const std::string& text) {
    fs::create_directories(root_ / std::to_string(pid));
    std::ofstream(root_ / std::to_string(pid) / leaf, std::ios::binary) << text;
  }
  // A python job as proc(5) shows it, run by `uid` (the four ids of the Uid line).
  void python(std::uint32_t pid, std::uint64_t utime, std::uint64_t stime, std::uint64_t start,
              const std::string& uid = "0\t0\t0\t0") {
    write(pid, "stat", stat_line(pid, "python3", utime, stime, start, 51200));
    write(pid, "status", status_text(uid));
    write(pid, "cmdline", "python3\0train.py\0--epochs\0003\0"s);
  }
  std::vector<ProcessDetails> read(std::vector<std::uint32_t> pids, double seconds) {
    return reader_.read(pids, at(seconds));
  }

  const fs::path root_ = make_root();  // before reader_, which copies it
  ProcessDetailsReader reader_{root_, kHz, kPage};
};

TEST_F(ProcessDetailsTest, FirstReadHasEverythingButCpu) {
  python(4242, 1500, 300, 123456);
  const auto rows = read({4242}, 10.0);
  ASSERT_EQ(rows.size(), 1u);
  const auto& r = rows[0];
  EXPECT_EQ(r.pid, 4242u);
  EXPECT_FALSE(r.gone);
  EXPECT_EQ(r.uid, 0u);
  EXPECT_EQ(r.user, "root");
  EXPECT_EQ(r.command, "python3 train.py --epochs 3");
  EXPECT_EQ(r.rss_bytes, 51200u * 4096u);
  EXPECT_FALSE(r.cpu_percent);
}

TEST_F(ProcessDetailsTest, CpuPercentIsTicksOverElapsedTime) {
  python(4242, 1500, 300, 123456);
  read({4242}, 10.0);
  python(4242, 1650, 330, 123456);  // 180 ticks = 1.8 s of CPU in 2 s
  auto rows = read({4242}, 12.0);
  ASSERT_TRUE(rows[0].cpu_percent);
  EXPECT_DOUBLE_EQ(*rows[0].cpu_percent, 90.0);
  python(4242, 2450, 330, 123456);  // 8 s of CPU in 2 s: four cores busy
  rows = read({4242}, 14.0);
  ASSERT_TRUE(rows[0].cpu_percent);
  EXPECT_DOUBLE_EQ(*rows[0].cpu_percent, 400.0);
  rows = read({4242}, 14.0);  // no time passed: nothing to measure
  EXPECT_FALSE(rows[0].cpu_percent);
}

TEST_F(ProcessDetailsTest, ReusedPidStartsOver) {
  python(4242, 1500, 300, 123456);
  read({4242}, 10.0);
  python(4242, 1650, 330, 999999);  // same pid, another start time
  auto rows = read({4242}, 12.0);
  EXPECT_FALSE(rows[0].cpu_percent);
  EXPECT_FALSE(rows[0].gone);
  python(4242, 1750, 330, 999999);
  rows = read({4242}, 14.0);
  ASSERT_TRUE(rows[0].cpu_percent);
  EXPECT_DOUBLE_EQ(*rows[0].cpu_percent, 50.0);
}

TEST_F(ProcessDetailsTest, ForgetsPidsLeftOutOfARead) {
  python(4242, 1500, 300, 123456);
  read({4242}, 10.0);
  read({}, 11.0);
  python(4242, 1650, 330, 123456);
  EXPECT_FALSE(read({4242}, 12.0)[0].cpu_percent);
}

TEST_F(ProcessDetailsTest, MissingPidIsGone) {
  python(4242, 1500, 300, 123456);
  auto rows = read({5000, 4242, 0}, 10.0);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].pid, 5000u);
  EXPECT_TRUE(rows[0].gone);
  EXPECT_EQ(rows[0].command, "");
  EXPECT_FALSE(rows[0].uid);
  EXPECT_FALSE(rows[0].rss_bytes);
  EXPECT_FALSE(rows[1].gone);
  EXPECT_TRUE(rows[2].gone);

  fs::remove_all(root_ / "4242");  // exits between two reads
  rows = read({4242}, 12.0);
  EXPECT_TRUE(rows[0].gone);
  EXPECT_FALSE(rows[0].cpu_percent);
}

TEST_F(ProcessDetailsTest, UserNameOrUidAsText) {
  python(4242, 1, 1, 1, "0\t0\t0\t0");
  python(4243, 1, 1, 1, "4000000\t0\t0\t0");  // no passwd entry: a container's user, say
  python(4244, 1, 1, 1, "garbage");
  const auto rows = read({4242, 4243, 4244}, 10.0);
  EXPECT_EQ(rows[0].user, "root");
  EXPECT_EQ(rows[1].uid, 4000000u);
  EXPECT_EQ(rows[1].user, "4000000");
  EXPECT_FALSE(rows[2].uid);
  EXPECT_EQ(rows[2].user, "");
  EXPECT_EQ(rows[2].command, "python3 train.py --epochs 3");  // the rest is still read
}

TEST_F(ProcessDetailsTest, NoArgumentsShowsTheBracketedName) {
  // kthreadd: a kernel thread has an empty cmdline and no memory of its own.
  write(2, "stat", "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 1 0 0 20 0 1 0 20 0 0 "
                   "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  write(2, "status", status_text("0\t0\t0\t0"));
  write(2, "cmdline", "");
  const auto rows = read({2}, 10.0);
  EXPECT_EQ(rows[0].command, "[kthreadd]");
  EXPECT_EQ(rows[0].rss_bytes, 0u);
}

TEST_F(ProcessDetailsTest, GarbageLeavesFieldsEmptyButNotGone) {
  write(4242, "stat", "not a stat line");
  write(4242, "status", "\x01\x02 garbage");
  write(4242, "cmdline", "");
  const auto rows = read({4242}, 10.0);
  EXPECT_FALSE(rows[0].gone);
  EXPECT_FALSE(rows[0].uid);
  EXPECT_FALSE(rows[0].rss_bytes);
  EXPECT_EQ(rows[0].command, "");
}

TEST(ProcessDetailsReader, MissingRootIsUnknownNotGone) {
  ProcessDetailsReader reader("/nonexistent/gpuwatch-proc", kHz, kPage);
  const std::vector<std::uint32_t> pids{1};
  const auto rows = reader.read(pids, at(1.0));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].gone);
  EXPECT_FALSE(rows[0].rss_bytes);
}

TEST(ProcessDetailsReader, ThisProcessUnderTheRealProc) {
  if (!fs::exists("/proc/self/stat")) GTEST_SKIP() << "no /proc";
  ProcessDetailsReader reader("/proc");
  const std::vector<std::uint32_t> pids{static_cast<std::uint32_t>(::getpid())};
  reader.read(pids, at(1.0));
  const auto rows = reader.read(pids, at(1.5));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].gone);
  EXPECT_EQ(rows[0].uid, static_cast<std::uint32_t>(::getuid()));
  EXPECT_FALSE(rows[0].user.empty());
  std::ostringstream raw;
  raw << std::ifstream("/proc/self/cmdline", std::ios::binary).rdbuf();
  EXPECT_FALSE(rows[0].command.empty());
  EXPECT_EQ(rows[0].command, parse_cmdline(raw.str()));
  EXPECT_GT(rows[0].rss_bytes.value_or(0), 0u);
  EXPECT_GE(rows[0].cpu_percent.value_or(-1.0), 0.0);
}

}  // namespace
}  // namespace gpuwatch
