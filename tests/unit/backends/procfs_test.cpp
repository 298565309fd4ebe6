// Procfs parsers on good and broken input, and HostReader over the fixture
// snapshots in tests/fixtures/proc*; tests/fixtures/README.md derives every
// expected number used here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/bytes.h"
#include "backends/procfs/host.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

const fs::path kFixtures = GPUWATCH_FIXTURES;
constexpr long kHz = 100;
constexpr long kPage = 4096;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

Timestamp at(double seconds) {
  const auto ns = std::llround(seconds * 1e9);
  return Timestamp{ns, 1'764'080'000'000'000'000 + ns};
}

// A private root that can be pointed at one snapshot after another (the
// reader's root is fixed, /proc's contents are not), or hold an editable copy.
class ProcRoot {
 public:
  ProcRoot() {
    std::string tmpl = (fs::path(::testing::TempDir()) / "gpuwatch-procfs-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
  }
  ~ProcRoot() { fs::remove_all(dir_); }  // does not follow the symlink
  ProcRoot(const ProcRoot&) = delete;
  ProcRoot& operator=(const ProcRoot&) = delete;

  [[nodiscard]] fs::path path() const { return dir_ / "proc"; }
  void link(const std::string& snapshot) {
    fs::remove_all(path());
    fs::create_directory_symlink(kFixtures / snapshot, path());
  }
  void copy(const std::string& snapshot) {
    fs::remove_all(path());
    fs::copy(kFixtures / snapshot, path(), fs::copy_options::recursive);
  }

 private:
  fs::path dir_;
};

// --- parse_proc_stat / cpu_percent ---

TEST(ProcStatParse, FixtureFile) {
  const auto st = parse_proc_stat(slurp(kFixtures / "proc/stat"));
  ASSERT_TRUE(st);
  // cpu: 400000 1400 105000 3285000 6500 0 4300 300 5000 0 (guest 5000 not added)
  EXPECT_EQ(st->all.busy, 400000u + 1400 + 105000 + 0 + 4300 + 300);
  EXPECT_EQ(st->all.total, st->all.busy + 3285000 + 6500);
  ASSERT_EQ(st->cores.size(), 4u);
  EXPECT_EQ(st->cores[1].busy, 110000u + 400 + 28000 + 1200 + 300);
  EXPECT_EQ(st->cores[3].total, 80000u + 200 + 22000 + 845000 + 1200 + 700);
}

TEST(ProcStatParse, OldAndNewKernelFieldCounts) {
  const auto four = parse_proc_stat("cpu  1 2 3 4\ncpu0 1 2 3 4\n");
  ASSERT_TRUE(four);
  EXPECT_EQ(four->all.busy, 6u);
  EXPECT_EQ(four->all.total, 10u);
  const auto eleven = parse_proc_stat("cpu 1 1 1 1 1 1 1 1 1 1 77");  // no trailing newline
  ASSERT_TRUE(eleven);
  EXPECT_EQ(eleven->all.busy, 6u);
  EXPECT_EQ(eleven->all.total, 8u);
  EXPECT_TRUE(eleven->cores.empty());
}

TEST(ProcStatParse, OfflineCoreLeavesGap) {
  const auto st = parse_proc_stat("cpu 4 0 0 4\ncpu0 2 0 0 2\ncpu2 2 0 0 2\n");
  ASSERT_TRUE(st);
  ASSERT_EQ(st->cores.size(), 3u);
  EXPECT_EQ(st->cores[1].total, 0u);
  EXPECT_EQ(st->cores[2].total, 4u);
}

TEST(ProcStatParse, Malformed) {
  for (const char* text : {"", "\n\n", "intr 1 2 3\nctxt 5\n",       // no cpu line
                           "cpu0 1 2 3 4\n",                          // no aggregate
                           "cpu  400000 1400 105",                    // truncated
                           "cpu", "cpu \n", "cpu  a b c d\n", "cpu  1 2 -3 4\n", "cpu 1 2 3 4x\n",
                           "cpu 1 2 3 4\ncpuX 1 2 3 4\n",           // bad core label
                           "cpu 1 2 3 4\ncpu99999999 1 2 3 4\n",    // absurd core index
                           "cpu 99999999999999999999 0 0 0\n",      // out of range
                           "cpu 18446744073709551615 1 0 0\n",      // busy overflows
                           "cpu 0 0 0 18446744073709551615 1\n"}) { // total overflows
    EXPECT_FALSE(parse_proc_stat(text)) << text;
  }
  const char binary[] = "cpu \0\xff\x01 2 3 4";
  EXPECT_FALSE(parse_proc_stat(std::string_view(binary, sizeof binary - 1)));
}

TEST(CpuPercent, DeltasAndEdges) {
  EXPECT_DOUBLE_EQ(*cpu_percent({10, 100}, {35, 150}), 50.0);
  EXPECT_DOUBLE_EQ(*cpu_percent({10, 100}, {10, 150}), 0.0);
  EXPECT_FALSE(cpu_percent({10, 100}, {10, 100}));  // no tick elapsed
  EXPECT_FALSE(cpu_percent({10, 100}, {12, 98}));   // went backwards
  EXPECT_FALSE(cpu_percent({0, 0}, {50, 100}));     // core was offline
  EXPECT_FALSE(cpu_percent({50, 100}, {0, 0}));     // core went offline
  EXPECT_DOUBLE_EQ(*cpu_percent({10, 100}, {5, 150}), 0.0);     // busy fell: clamp
  EXPECT_DOUBLE_EQ(*cpu_percent({10, 100}, {90, 150}), 100.0);  // busy > elapsed: clamp
  // 100.0 * x / x is 100.00000000000001 for this x; a share must stay <= 100.
  constexpr std::uint64_t x = 16478790771768674217u;
  EXPECT_LE(*cpu_percent({0, 1}, {x, x + 1}), 100.0);
}

// --- parse_meminfo ---

TEST(MeminfoParse, FixtureFile) {
  const auto m = parse_meminfo(slurp(kFixtures / "proc/meminfo"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->total_bytes, 16370000ull * 1024);
  ASSERT_TRUE(m->available_bytes);
  EXPECT_EQ(*m->available_bytes, 12000000ull * 1024);
}

TEST(MeminfoParse, OldKernelAndGarbageInOtherLines) {
  const auto old = parse_meminfo("MemTotal:  2048 kB\nMemFree:  1024 kB");  // before 3.14
  ASSERT_TRUE(old);
  EXPECT_EQ(old->total_bytes, 2048u * 1024);
  EXPECT_FALSE(old->available_bytes);
  const auto m = parse_meminfo("Junk\n\xff\xfe\nMemAvailable: 1 kB\nMemTotal: 2 kB\nFoo: bar baz\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->total_bytes, 2048u);
  EXPECT_EQ(m->available_bytes, 1024u);
}

TEST(MeminfoParse, Malformed) {
  for (const char* text : {"", "MemFree: 5 kB\n", "MemTotal:\n", "MemTotal: kB\n",
                           "MemTotal: abc kB\n", "MemTotal: 5 MB\n", "MemTotal: 5 kB extra\n",
                           "MemTotal: -5 kB\n", "MemTotal: 18446744073709551615 kB\n",
                           "MemTotal: 99999999999999999999999 kB\n",
                           "MemTotal: 5 kB\nMemAvailable: x kB\n"}) {
    EXPECT_FALSE(parse_meminfo(text)) << text;
  }
}

// --- parse_pid_stat ---

TEST(PidStatParse, CommWithSpacesAndParentheses) {
  const auto st = parse_pid_stat(slurp(kFixtures / "proc/4251/stat"));
  ASSERT_TRUE(st);
  EXPECT_EQ(st->pid, 4251u);
  EXPECT_EQ(st->comm, "data (w1) :)");
  EXPECT_EQ(st->ppid, 4242u);
  EXPECT_EQ(st->utime_ticks, 1900u);
  EXPECT_EQ(st->stime_ticks, 450u);
  EXPECT_EQ(st->start_ticks, 8000501u);
  EXPECT_EQ(st->rss_pages, 60000u);
}

TEST(PidStatParse, CommThatLooksLikeFields) {
  // A comm ending in ") R 9" must not shift the fields: the last ')' counts.
  const auto st = parse_pid_stat(
      "77 (x) R 9 ) S 5 77 77 0 -1 0 0 0 0 0 11 22 0 0 20 0 1 0 333 4096 7 18446744073709551615\n");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->comm, "x) R 9 ");
  EXPECT_EQ(st->ppid, 5u);
  EXPECT_EQ(st->pgrp, 77u);     // the matrix ends a cell by its session (matrix/cell_processes.h)
  EXPECT_EQ(st->session, 77u);
  EXPECT_EQ(st->utime_ticks, 11u);
  EXPECT_EQ(st->stime_ticks, 22u);
  EXPECT_EQ(st->start_ticks, 333u);
  EXPECT_EQ(st->rss_pages, 7u);
}

TEST(PidStatParse, EmptyCommAndNegativeRss) {
  const auto st = parse_pid_stat("8 () Z 1 0 0 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 3 0 -1");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->comm, "");
  EXPECT_EQ(st->rss_pages, 0u);
}

TEST(PidStatParse, Malformed) {
  const std::string good = slurp(kFixtures / "proc/4242/stat");
  ASSERT_TRUE(parse_pid_stat(good));
  // Cut inside the fields up to rss: every prefix must be rejected, none may crash.
  const auto rss_start = good.rfind(' ', good.find(" 18446744073709551615") - 1);
  for (std::size_t n = 0; n <= rss_start; ++n) {
    EXPECT_FALSE(parse_pid_stat(std::string_view(good).substr(0, n))) << n;
  }
  for (const char* text : {"", "(", ")", ")(", "4242 python S 1", "4242 (python",
                           "x (a) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 3 0 5",
                           "1 2 (a) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 3 0 5",
                           "1 (a) S -1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 3 0 5",
                           "1 (a) S 4294967296 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 3 0 5",
                           "1 (a) S 1 1 1 0 -1 0 0 0 0 0 1x 2 0 0 20 0 1 0 3 0 5",
                           "1 (a) S 1 1 1 0 -1 0 0 0 0 0 99999999999999999999 2 0 0 20 0 1 0 3 0 5",
                           "99999999999 (a) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 3 0 5"}) {
    EXPECT_FALSE(parse_pid_stat(text)) << text;
  }
}

// --- parse_io_read_bytes ---

TEST(IoParse, FixtureFile) {
  EXPECT_EQ(parse_io_read_bytes(slurp(kFixtures / "proc/4242/io")), 524288000u);
  EXPECT_EQ(parse_io_read_bytes("read_bytes: 18446744073709551615"), 18446744073709551615u);
}

TEST(IoParse, Malformed) {
  for (const char* text : {"", "rchar: 5\nwchar: 6\n", "read_bytes:\n", "read_bytes: x\n",
                           "read_bytes: 5 6\n", "read_bytes: -5\n", " read_bytes: 5\n",
                           "cancelled_read_bytes: 5\n", "read_bytes: 18446744073709551616\n"}) {
    EXPECT_FALSE(parse_io_read_bytes(text)) << text;
  }
}

// --- HostReader over the snapshots ---

class HostReaderTest : public ::testing::Test {
 protected:
  ProcRoot root_;
  HostReader reader_{root_.path(), kHz, kPage};

  HostSample read(const std::string& snapshot, double seconds) {
    root_.link(snapshot);
    return reader_.read(at(seconds));
  }
};

TEST_F(HostReaderTest, FirstReadHasLevelsButNoRates) {
  reader_.set_tree_root(4242);
  const auto s = read("proc", 100.0);
  EXPECT_FALSE(s.values.has(HostMetric::CpuPercent));
  EXPECT_TRUE(s.core_percent.empty());
  EXPECT_EQ(s.values.get(HostMetric::MemTotalBytes), 16762880000.0);
  EXPECT_EQ(s.values.get(HostMetric::MemUsedBytes), 4474880000.0);
  EXPECT_EQ(s.values.get(HostMetric::TreeProcessCount), 4.0);
  EXPECT_EQ(s.values.get(HostMetric::TreeRssBytes), 2631680000.0);
  EXPECT_FALSE(s.values.has(HostMetric::TreeCpuPercent));
  EXPECT_FALSE(s.values.has(HostMetric::TreeReadBytesPerSec));
  ASSERT_FALSE(reader_.tree_pids().empty());
  EXPECT_EQ(reader_.tree_pids().front(), 4242u);
  EXPECT_THAT(reader_.tree_pids(), UnorderedElementsAre(4242u, 4250u, 4251u, 4260u));
}

TEST_F(HostReaderTest, RatesBetweenTwoSnapshots) {
  reader_.set_tree_root(4242);
  read("proc", 100.0);
  const auto s = read("proc_t1", 100.5);
  EXPECT_DOUBLE_EQ(*s.values.get(HostMetric::CpuPercent), 45.0);
  EXPECT_THAT(s.core_percent, ElementsAre(100.0, 50.0, 20.0, 10.0));
  EXPECT_EQ(s.values.get(HostMetric::MemUsedBytes), 4679680000.0);
  // Tree: 4242 +50, 4250 +20, 4251 +10, 4260 +5 ticks in 0.5 s. The monitor
  // (4240, the root's parent) and the unrelated 5100 are not in it.
  EXPECT_THAT(reader_.tree_pids(), UnorderedElementsAre(4242u, 4250u, 4251u, 4260u));
  EXPECT_NEAR(*s.values.get(HostMetric::TreeCpuPercent), 170.0, 1e-9);
  EXPECT_EQ(s.values.get(HostMetric::TreeRssBytes), 2694840320.0);
  EXPECT_NEAR(*s.values.get(HostMetric::TreeReadBytesPerSec), 60 * kMiB, 1e-6);
}

TEST_F(HostReaderTest, RatesUseTheTimestampsPassedIn) {
  reader_.set_tree_root(4242);
  read("proc", 100.0);
  const auto s = read("proc_t1", 101.0);  // same counters over twice the time
  EXPECT_NEAR(*s.values.get(HostMetric::TreeCpuPercent), 85.0, 1e-9);
  EXPECT_NEAR(*s.values.get(HostMetric::TreeReadBytesPerSec), 30 * kMiB, 1e-6);
  // /proc/stat percentages are tick ratios and do not depend on the clock.
  EXPECT_DOUBLE_EQ(*s.values.get(HostMetric::CpuPercent), 45.0);

  const auto again = read("proc_t1", 101.0);  // no time passed
  EXPECT_FALSE(again.values.has(HostMetric::TreeCpuPercent));
  EXPECT_FALSE(again.values.has(HostMetric::TreeReadBytesPerSec));
  EXPECT_FALSE(again.values.has(HostMetric::CpuPercent));
}

TEST_F(HostReaderTest, ReusedPidAndNewProcessesCountFromZero) {
  reader_.set_tree_root(4242);
  read("proc", 100.0);
  read("proc_t1", 100.5);
  const auto s = read("proc_t2", 101.0);
  EXPECT_DOUBLE_EQ(*s.values.get(HostMetric::CpuPercent), 47.5);
  EXPECT_THAT(s.core_percent, ElementsAre(100.0, 40.0, 30.0, 20.0));
  // 4251 exited; 4260 is a new ffmpeg (starttime changed, 4 ticks < 305 of
  // the old one); 4270 is new. 45 + 20 + 4 + 6 ticks in 0.5 s.
  EXPECT_THAT(reader_.tree_pids(), UnorderedElementsAre(4242u, 4250u, 4260u, 4270u));
  EXPECT_EQ(s.values.get(HostMetric::TreeProcessCount), 4.0);
  EXPECT_NEAR(*s.values.get(HostMetric::TreeCpuPercent), 150.0, 1e-9);
  EXPECT_EQ(s.values.get(HostMetric::TreeRssBytes), 2555379712.0);
  EXPECT_NEAR(*s.values.get(HostMetric::TreeReadBytesPerSec), 12 * kMiB, 1e-6);
}

TEST_F(HostReaderTest, NoOrMissingTreeRootMeansNoTreeMetrics) {
  for (const std::uint32_t root : {0u, 31337u}) {
    reader_.set_tree_root(root);
    read("proc", 100.0);
    const auto s = read("proc_t1", 100.5);
    EXPECT_TRUE(s.values.has(HostMetric::CpuPercent));
    EXPECT_TRUE(s.values.has(HostMetric::MemUsedBytes));
    EXPECT_FALSE(s.values.has(HostMetric::TreeProcessCount));
    EXPECT_FALSE(s.values.has(HostMetric::TreeRssBytes));
    EXPECT_FALSE(s.values.has(HostMetric::TreeCpuPercent));
    EXPECT_TRUE(reader_.tree_pids().empty());
  }
}

TEST_F(HostReaderTest, SubtreeAndResetOnNewRoot) {
  reader_.set_tree_root(4242);
  read("proc", 100.0);
  reader_.set_tree_root(4250);  // forgets the baseline: no rate on the next read
  const auto s = read("proc_t1", 100.5);
  EXPECT_THAT(reader_.tree_pids(), ElementsAre(4250u, 4260u));
  EXPECT_EQ(s.values.get(HostMetric::TreeRssBytes), (65536.0 + 2560.0) * kPage);
  EXPECT_FALSE(s.values.has(HostMetric::TreeCpuPercent));
  const auto s2 = read("proc_t2", 101.0);  // 4250 +20, new 4260: 4
  EXPECT_NEAR(*s2.values.get(HostMetric::TreeCpuPercent), 48.0, 1e-9);
}

TEST_F(HostReaderTest, RootPidReusedByAnotherProcessIsNotTheTree) {
  reader_.set_tree_root(4242);
  read("proc", 100.0);
  root_.copy("proc_t1");
  auto text = slurp(root_.path() / "4242/stat");
  text.replace(text.find(" 8000010 "), 9, " 8001040 ");
  write(root_.path() / "4242/stat", text);
  const auto s = reader_.read(at(100.5));
  EXPECT_FALSE(s.values.has(HostMetric::TreeProcessCount));
  EXPECT_TRUE(reader_.tree_pids().empty());
}

TEST_F(HostReaderTest, MissingOrBrokenFilesMeanAbsentMetrics) {
  reader_.set_tree_root(4242);
  read("proc", 100.0);
  root_.copy("proc_t1");
  fs::remove(root_.path() / "meminfo");
  fs::remove(root_.path() / "4260/io");
  write(root_.path() / "stat", "cpu  12 garbage\n");
  const auto s = reader_.read(at(100.5));
  EXPECT_FALSE(s.values.has(HostMetric::CpuPercent));
  EXPECT_TRUE(s.core_percent.empty());
  EXPECT_FALSE(s.values.has(HostMetric::MemTotalBytes));
  EXPECT_FALSE(s.values.has(HostMetric::MemUsedBytes));
  EXPECT_FALSE(s.values.has(HostMetric::TreeReadBytesPerSec));  // one tree io unreadable
  EXPECT_NEAR(*s.values.get(HostMetric::TreeCpuPercent), 170.0, 1e-9);
  EXPECT_EQ(s.values.get(HostMetric::TreeProcessCount), 4.0);
}

TEST_F(HostReaderTest, UnreadableStatKeepsTheOldBaseline) {
  read("proc", 100.0);
  root_.copy("proc_t1");
  fs::remove(root_.path() / "stat");
  EXPECT_FALSE(reader_.read(at(100.5)).values.has(HostMetric::CpuPercent));
  const auto s = read("proc_t2", 101.0);  // proc -> proc_t2: (90 + 95) / 400 ticks
  EXPECT_DOUBLE_EQ(*s.values.get(HostMetric::CpuPercent), 46.25);
}

TEST_F(HostReaderTest, OfflineCoreIsNaN) {
  read("proc", 100.0);
  root_.copy("proc_t1");
  auto text = slurp(root_.path() / "stat");
  const auto cpu2 = text.find("cpu2 ");
  text.erase(cpu2, text.find('\n', cpu2) + 1 - cpu2);
  write(root_.path() / "stat", text);
  const auto s = reader_.read(at(100.5));
  ASSERT_EQ(s.core_percent.size(), 4u);
  EXPECT_DOUBLE_EQ(s.core_percent[1], 50.0);
  EXPECT_TRUE(std::isnan(s.core_percent[2]));
  EXPECT_DOUBLE_EQ(s.core_percent[3], 10.0);
}

// Kernels without CONFIG_PROC_CHILDREN: the same snapshots minus every
// task/*/children file must give the same tree through the full /proc scan.
TEST(HostReader, WithoutChildrenFilesTheFullScanFindsTheSameTree) {
  const fs::path copy = fs::temp_directory_path() / ("gpuwatch-nochildren-" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::create_directories(copy);
  for (const char* snapshot : {"proc", "proc_t2"}) {
    fs::copy(kFixtures / snapshot, copy / snapshot, fs::copy_options::recursive);
    for (const auto& entry : fs::directory_iterator(copy / snapshot)) {
      if (entry.is_directory()) fs::remove_all(entry.path() / "task");
    }
  }
  for (const char* snapshot : {"proc", "proc_t2"}) {
    HostReader walked(kFixtures / snapshot, kHz, kPage);
    HostReader scanned(copy / snapshot, kHz, kPage);
    walked.set_tree_root(4242);
    scanned.set_tree_root(4242);
    const auto a = walked.read(at(100.0));
    const auto b = scanned.read(at(100.0));
    auto sorted = [](std::vector<std::uint32_t> v) {
      std::sort(v.begin(), v.end());
      return v;
    };
    EXPECT_EQ(sorted(walked.tree_pids()), sorted(scanned.tree_pids())) << snapshot;
    EXPECT_EQ(a.values.get(HostMetric::TreeRssBytes), b.values.get(HostMetric::TreeRssBytes)) << snapshot;
  }
  HostReader t2(kFixtures / "proc_t2", kHz, kPage);
  t2.set_tree_root(4242);
  t2.read(at(100.0));
  // 4270 is listed only under thread 4243 of the root.
  EXPECT_THAT(t2.tree_pids(), UnorderedElementsAre(4242u, 4250u, 4260u, 4270u));
  fs::remove_all(copy);
}

TEST(HostReader, MissingRootIsEmptyNotACrash) {
  HostReader reader("/nonexistent/gpuwatch-proc", kHz, kPage);
  reader.set_tree_root(1);
  for (double t : {1.0, 2.0}) {
    const auto s = reader.read(at(t));
    EXPECT_TRUE(s.values.empty());
    EXPECT_TRUE(s.core_percent.empty());
  }
  EXPECT_TRUE(reader.tree_pids().empty());
  EXPECT_EQ(reader.process_name(1), "");
}

TEST(HostReader, ProcessName) {
  const HostReader reader(kFixtures / "proc", kHz, kPage);
  EXPECT_EQ(reader.process_name(4251), "data (w1) :)");
  EXPECT_EQ(reader.process_name(4242), "python");
  EXPECT_EQ(reader.process_name(99999), "");
}

TEST(HostReader, SystemUnitsByDefault) {
  // Real /proc when present: only checks that nothing is absent that a Linux
  // box always has, and that the sysconf path works.
  if (!fs::exists("/proc/stat")) GTEST_SKIP() << "no /proc";
  HostReader reader("/proc");
  reader.set_tree_root(static_cast<std::uint32_t>(::getpid()));
  reader.read(at(1.0));
  const auto s = reader.read(at(1.5));
  EXPECT_TRUE(s.values.has(HostMetric::MemTotalBytes));
  EXPECT_GE(s.values.get(HostMetric::TreeProcessCount).value_or(0.0), 1.0);
  EXPECT_GT(s.values.get(HostMetric::TreeRssBytes).value_or(0.0), 0.0);
}

}  // namespace
}  // namespace gpuwatch
