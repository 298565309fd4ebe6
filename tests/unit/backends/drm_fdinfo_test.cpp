// The DRM fdinfo parser on texts the kernel prints (and on bad ones), and the
// scanner against the tree unpacked from tests/fixtures/procfs/drm_amdgpu.ttar
// (procfs/README.md gives each value's source). Tests that change the tree
// work on a copy.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "backends/drm_fdinfo/fdinfo_parse.h"
#include "backends/drm_fdinfo/fdinfo_rounds.h"
#include "backends/drm_fdinfo/fdinfo_scan.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;

const fs::path kDrmProc = fs::path(GPUWATCH_FIXTURE_TREES) / "procfs/drm_amdgpu";
constexpr std::int64_t kSecondNs = 1'000'000'000;

Timestamp at_seconds(double s) {
  const auto ns = static_cast<std::int64_t>(s * kSecondNs);
  return Timestamp{.mono_ns = ns, .wall_ns = ns};
}

// ---- parser ----------------------------------------------------------------

TEST(DrmFdinfoParse, AmdgpuLegacyMemoryAndBusyTime) {
  const auto f = parse_drm_fdinfo(
      "pos:\t0\nflags:\t02100002\nmnt_id:\t25\nino:\t1093\ndrm-driver:\tamdgpu\ndrm-client-id:\t217\n"
      "drm-pdev:\t0000:08:00.0\npasid:\t32784\ndrm-memory-vram:\t2068 KiB\ndrm-memory-gtt:\t8192 KiB\n"
      "drm-memory-cpu:\t0 KiB\ndrm-engine-gfx:\t107322799 ns\n");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->driver, "amdgpu");
  EXPECT_EQ(f->pdev, "0000:08:00.0");
  EXPECT_EQ(f->client_id, 217U);
  ASSERT_EQ(f->engines.size(), 1U);
  EXPECT_EQ(f->engine("gfx")->busy_ns, 107322799U);
  EXPECT_EQ(f->engine("gfx")->capacity, 1U);
  ASSERT_EQ(f->regions.size(), 3U);
  EXPECT_EQ(f->region("vram")->memory_bytes, 2068U * 1024);
  EXPECT_EQ(f->region("vram")->resident_or_memory(), 2068U * 1024);
  EXPECT_FALSE(f->region("vram")->total_bytes);
  EXPECT_EQ(f->region("gtt")->memory_bytes, 8192U * 1024);
  EXPECT_EQ(f->region("cpu")->memory_bytes, 0U);
}

TEST(DrmFdinfoParse, XeCyclesCapacityAndEveryMemoryKind) {
  const auto f = parse_drm_fdinfo(
      "drm-driver: xe\ndrm-client-id: 3\ndrm-pdev: 0000:03:00.0\ndrm-total-gtt: 192 KiB\n"
      "drm-total-vram0: 23992 KiB\ndrm-shared-vram0: 16 MiB\ndrm-resident-vram0: 23992 KiB\n"
      "drm-active-vram0: 0\ndrm-purgeable-system: 0\n"
      "drm-cycles-rcs: 28257900\ndrm-total-cycles-rcs: 7655183225\n"
      "drm-cycles-ccs: 0\ndrm-total-cycles-ccs: 7655183225\ndrm-engine-capacity-ccs: 4\n"
      "drm-maxfreq-rcs: 2400 MHz\n");
  ASSERT_TRUE(f);
  const DrmEngine* rcs = f->engine("rcs");
  ASSERT_NE(rcs, nullptr);
  EXPECT_EQ(rcs->cycles, 28257900U);
  EXPECT_EQ(rcs->total_cycles, 7655183225U);
  EXPECT_FALSE(rcs->busy_ns);
  EXPECT_EQ(f->engine("ccs")->capacity, 4U);
  EXPECT_EQ(f->engine("capacity-ccs"), nullptr);
  EXPECT_EQ(f->engine("maxfreq-rcs"), nullptr);
  const DrmMemoryRegion* vram = f->region("vram0");
  ASSERT_NE(vram, nullptr);
  EXPECT_EQ(vram->total_bytes, 23992U * 1024);
  EXPECT_EQ(vram->shared_bytes, 16U * 1024 * 1024);
  EXPECT_EQ(vram->resident_bytes, 23992U * 1024);
  EXPECT_EQ(f->region("gtt")->total_bytes, 192U * 1024);
  // drm-total-cycles-rcs is rcs's clock, not a memory region "cycles-rcs".
  EXPECT_EQ(f->region("cycles-rcs"), nullptr);
  EXPECT_EQ(f->region("system"), nullptr);  // only purgeable: not a size we keep
}

TEST(DrmFdinfoParse, I915BusyTimeWithCapacity) {
  const auto f = parse_drm_fdinfo(
      "drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: 7\ndrm-engine-render: 9288864723 ns\n"
      "drm-engine-copy: 2035071108 ns\ndrm-engine-video: 0 ns\ndrm-engine-capacity-video: 2\n"
      "drm-engine-video-enhance: 0 ns\n");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->engines.size(), 4U);
  EXPECT_EQ(f->engine("render")->busy_ns, 9288864723U);
  EXPECT_EQ(f->engine("video")->capacity, 2U);
  EXPECT_EQ(f->engine("video-enhance")->busy_ns, 0U);
}

TEST(DrmFdinfoParse, NoDriverIsNoClient) {
  EXPECT_FALSE(parse_drm_fdinfo(""));
  EXPECT_FALSE(parse_drm_fdinfo("pos:\t0\nflags:\t02\nmnt_id:\t25\nino:\t3\n"));
  EXPECT_FALSE(parse_drm_fdinfo("drm-driver:\t\ndrm-client-id: 4\n"));
  // Without pdev and client id it is still a client (pdev is optional).
  const auto bare = parse_drm_fdinfo("drm-driver: v3d\n");
  ASSERT_TRUE(bare);
  EXPECT_TRUE(bare->pdev.empty());
  EXPECT_FALSE(bare->client_id);
}

TEST(DrmFdinfoParse, GarbageLinesCostOnlyThemselves) {
  const auto f = parse_drm_fdinfo(
      "\n\n::\nno colon here\n: value without key\ndrm driver: spaced key\n\xff\xfe:\x01\n"
      "drm-driver:\tamdgpu\r\n"
      "drm-client-id: twelve\n"
      "drm-engine-gfx: 100\n"            // no unit: not ns
      "drm-engine-compute: 5 ms\n"       // wrong unit
      "drm-engine-dma: -5 ns\n"
      "drm-engine-: 7 ns\n"              // no name
      "drm-engine-enc: 12 ns trailing\n"
      "drm-engine-dec:   42 ns  \n"      // blanks around are fine
      "drm-memory-vram: 12 GiB\n"        // not a unit the spec has
      "drm-memory-gtt: 0x10\n"
      "drm-total-vram: 1.5 MiB\n"
      "drm-engine-capacity-dec: 0\n"     // 0 is not allowed: stays 1
      "drm-engine-capacity-dec: many\n");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->driver, "amdgpu");
  EXPECT_FALSE(f->client_id);
  ASSERT_EQ(f->engines.size(), 1U);
  EXPECT_EQ(f->engine("dec")->busy_ns, 42U);
  EXPECT_EQ(f->engine("dec")->capacity, 1U);
  EXPECT_TRUE(f->regions.empty());
}

TEST(DrmFdinfoParse, HugeNumbersAreKeptOrSkippedNeverWrapped) {
  const auto f = parse_drm_fdinfo(
      "drm-driver: amdgpu\ndrm-client-id: 18446744073709551615\n"
      "drm-engine-gfx: 18446744073709551615 ns\ndrm-engine-compute: 18446744073709551616 ns\n"
      "drm-memory-vram: 17592186044415 MiB\n"     // (2^44 - 1) MiB fits in 64 bits
      "drm-memory-gtt: 17592186044416 MiB\n"      // 2^64 bytes: does not
      "drm-resident-vram: 99999999999999999999 KiB\n"
      "drm-engine-capacity-gfx: 4294967296\n");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->client_id, UINT64_MAX);
  EXPECT_EQ(f->engine("gfx")->busy_ns, UINT64_MAX);
  EXPECT_EQ(f->engine("gfx")->capacity, 1U);
  EXPECT_EQ(f->engine("compute"), nullptr);
  EXPECT_EQ(f->region("vram")->memory_bytes, ((std::uint64_t{1} << 44) - 1) << 20);
  EXPECT_FALSE(f->region("vram")->resident_bytes);
  EXPECT_EQ(f->region("gtt"), nullptr);
}

TEST(DrmFdinfoParse, UnitsAndTheNewKeysBeforeTheOld) {
  const auto f = parse_drm_fdinfo(
      "drm-driver: amdgpu\ndrm-memory-vram: 1572864 KiB\ndrm-resident-vram: 1536 MiB\n"
      "drm-shared-vram: 4096\n");
  ASSERT_TRUE(f);
  const DrmMemoryRegion* vram = f->region("vram");
  EXPECT_EQ(vram->memory_bytes, 1610612736U);
  EXPECT_EQ(vram->resident_bytes, 1610612736U);
  EXPECT_EQ(vram->shared_bytes, 4096U);
  EXPECT_EQ(vram->resident_or_memory(), 1610612736U);
}

TEST(DrmFdinfoParse, MadeUpKeysDoNotGrowWithoutBound) {
  std::string text = "drm-driver: amdgpu\n";
  for (int i = 0; i < 1000; ++i) text += "drm-engine-e" + std::to_string(i) + ": 1 ns\n";
  const auto f = parse_drm_fdinfo(text);
  ASSERT_TRUE(f);
  EXPECT_LE(f->engines.size(), 64U);
}

// ---- scanner ---------------------------------------------------------------

class DrmFdinfoScanTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (!scratch_.empty()) fs::remove_all(scratch_);
  }

  // A copy of the fixture tree, symlinks kept, that a test may change.
  fs::path copy_tree() {
    std::string pattern = (fs::temp_directory_path() / "gpuwatch-fdinfo-XXXXXX").string();
    EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
    scratch_ = pattern;
    const fs::path root = scratch_ / "proc";
    fs::copy(kDrmProc, root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    return root;
  }

  static void write_fdinfo(const fs::path& root, const std::string& pid_fd, const std::string& drm_keys) {
    std::ofstream out(root / pid_fd, std::ios::trunc);
    out << "pos:\t0\nflags:\t02100002\nmnt_id:\t25\nino:\t1093\n" << drm_keys;
    ASSERT_TRUE(out.good());
  }

  static std::string amd(unsigned client, std::uint64_t gfx_ns, std::uint64_t compute_ns = 0) {
    std::string s = "drm-driver:\tamdgpu\ndrm-client-id:\t" + std::to_string(client) +
                    "\ndrm-pdev:\t0000:03:00.0\ndrm-memory-vram:\t2068 KiB\ndrm-engine-gfx:\t" +
                    std::to_string(gfx_ns) + " ns\n";
    if (compute_ns > 0) s += "drm-engine-compute:\t" + std::to_string(compute_ns) + " ns\n";
    return s;
  }

 private:
  fs::path scratch_;
};

TEST_F(DrmFdinfoScanTest, EachClientOnceUnderItsLowestPid) {
  DrmFdinfoScanner scanner(kDrmProc);
  const DrmScan scan = scanner.scan(at_seconds(100));
  ASSERT_EQ(scan.clients.size(), 3U);
  // Sorted by pdev, then client id. 217 is on fds 5 and 6 of 2001 and fd 5 of 2002.
  EXPECT_EQ(scan.clients[0].info.pdev, "0000:03:00.0");
  EXPECT_EQ(scan.clients[0].info.client_id, 217U);
  EXPECT_EQ(scan.clients[0].pid, 2001U);
  EXPECT_EQ(scan.clients[1].info.client_id, 218U);
  EXPECT_EQ(scan.clients[1].pid, 2003U);
  EXPECT_EQ(scan.clients[2].info.driver, "xe");
  EXPECT_EQ(scan.clients[2].info.pdev, "0000:c1:00.0");
  EXPECT_EQ(scan.clients[2].pid, 2006U);
  // First sight: no rate yet, not 0.
  for (const DrmClient& c : scan.clients) EXPECT_TRUE(c.engine_use.empty()) << c.pid;
}

TEST_F(DrmFdinfoScanTest, OtherUsersProcessesAreCountedAsHidden) {
  DrmFdinfoScanner scanner(kDrmProc);
  // 3001's fds cannot be listed; kthreadd (pid 2) neither, but it is a kernel thread.
  EXPECT_EQ(scanner.scan(at_seconds(100)).hidden_processes, 1U);
  EXPECT_EQ(scanner.scan(at_seconds(101)).hidden_processes, 1U);  // also from the cache
}

TEST_F(DrmFdinfoScanTest, RealPermissionRefusalIsHiddenToo) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every directory";
  const fs::path root = copy_tree();
  fs::permissions(root / "2003/fd", fs::perms::none);
  DrmFdinfoScanner scanner(root);
  const DrmScan scan = scanner.scan(at_seconds(100));
  fs::permissions(root / "2003/fd", fs::perms::owner_all);
  EXPECT_EQ(scan.hidden_processes, 2U);
  EXPECT_EQ(scan.clients.size(), 2U);
}

TEST_F(DrmFdinfoScanTest, BusyTimeOverWallTimeBetweenTwoScans) {
  const fs::path root = copy_tree();
  DrmFdinfoScanner scanner(root);
  write_fdinfo(root, "2001/fdinfo/5", amd(217, 1'000'000'000));
  write_fdinfo(root, "2001/fdinfo/6", amd(217, 1'000'000'000));
  write_fdinfo(root, "2002/fdinfo/5", amd(217, 1'000'000'000));
  ASSERT_TRUE(scanner.scan(at_seconds(100)).clients[0].engine_use.empty());
  // 2 s later: gfx busy 0.5 s more (25 %); compute appears (amdgpu prints an
  // engine only once it has run), 1.5 s busy since then (75 %).
  for (const char* f : {"2001/fdinfo/5", "2001/fdinfo/6", "2002/fdinfo/5"}) {
    write_fdinfo(root, f, amd(217, 1'500'000'000, 1'500'000'000));
  }
  const DrmScan scan = scanner.scan(at_seconds(102));
  const DrmClient& c = scan.clients[0];
  ASSERT_EQ(c.info.client_id, 217U);
  EXPECT_DOUBLE_EQ(*c.use_percent("gfx"), 25);
  EXPECT_DOUBLE_EQ(*c.use_percent("compute"), 75);
  EXPECT_FALSE(c.use_percent("dma"));
  // 218 did not change: 0 % now that there is a previous scan.
  EXPECT_DOUBLE_EQ(*scan.clients[1].use_percent("compute"), 0);
  EXPECT_DOUBLE_EQ(*scan.clients[1].use_percent("gfx"), 0);
}

TEST_F(DrmFdinfoScanTest, CyclesOverTotalCyclesOverCapacity) {
  const fs::path root = copy_tree();
  DrmFdinfoScanner scanner(root);
  scanner.scan(at_seconds(100));
  write_fdinfo(root, "2006/fdinfo/4",
               "drm-driver: xe\ndrm-client-id: 3\ndrm-pdev: 0000:c1:00.0\n"
               "drm-cycles-rcs: 28757900\ndrm-total-cycles-rcs: 7656183225\n"      // +500000 / +1000000
               "drm-cycles-ccs: 2000000\ndrm-total-cycles-ccs: 7656183225\n"       // 4 engines: 2 of 4
               "drm-engine-capacity-ccs: 4\n");
  const DrmScan scan = scanner.scan(at_seconds(101));
  const DrmClient& xe = scan.clients[2];
  ASSERT_EQ(xe.info.driver, "xe");
  EXPECT_DOUBLE_EQ(*xe.use_percent("rcs"), 50);
  EXPECT_DOUBLE_EQ(*xe.use_percent("ccs"), 50);
  // bcs was in the first scan only: its counters are kept (no step back to
  // nothing), and without a newer timestamp it has no rate.
  EXPECT_FALSE(xe.use_percent("bcs"));
}

TEST_F(DrmFdinfoScanTest, CounterThatStepsBackGivesNoNegativeRate) {
  const fs::path root = copy_tree();
  DrmFdinfoScanner scanner(root);
  write_fdinfo(root, "2003/fdinfo/7", amd(218, 0, 3'000'000'000));
  scanner.scan(at_seconds(10));
  write_fdinfo(root, "2003/fdinfo/7", amd(218, 0, 2'000'000'000));  // steps back 1 s
  EXPECT_DOUBLE_EQ(*scanner.scan(at_seconds(11)).clients[1].use_percent("compute"), 0);
  // Measured against the largest value seen (3 s), not against the dip.
  write_fdinfo(root, "2003/fdinfo/7", amd(218, 0, 3'500'000'000));
  EXPECT_DOUBLE_EQ(*scanner.scan(at_seconds(12)).clients[1].use_percent("compute"), 50);
}

TEST_F(DrmFdinfoScanTest, ClosedFdIsForgottenAndNewClientFoundOnRelisting) {
  const fs::path root = copy_tree();
  DrmFdinfoScanner scanner(root);
  ASSERT_EQ(scanner.scan(at_seconds(1)).clients.size(), 3U);
  // 2003 closes its render node: its cached fd has no fdinfo any more.
  fs::remove(root / "2003/fd/7");
  fs::remove(root / "2003/fdinfo/7");
  EXPECT_EQ(scanner.scan(at_seconds(2)).clients.size(), 2U);
  // A process that was not using the GPU opens it: found within ten scans.
  fs::create_symlink("/dev/dri/renderD128", root / "2005/fd/11");
  write_fdinfo(root, "2005/fdinfo/11", amd(300, 5));
  bool found = false;
  for (int i = 0; i < 10 && !found; ++i) {
    for (const DrmClient& c : scanner.scan(at_seconds(3 + i)).clients) found = found || c.info.client_id == 300U;
  }
  EXPECT_TRUE(found);
}

// The kernel's own /proc for a child process, through a root that lists
// only it: since Linux 6.2 the fd directory's size is the number of open
// fds, and a process due for a listing is listed only when it changed.
TEST_F(DrmFdinfoScanTest, ADueProcessIsListedAgainOnlyWhenItsFdCountChanged) {
  struct stat st {};
  ASSERT_EQ(::stat("/proc/self/fd", &st), 0);
  if (st.st_size == 0) GTEST_SKIP() << "this kernel does not give /proc/PID/fd a size (before 6.2)";
  // Two pipes: the test asks the child for one more fd, and the child says
  // when its fd table is as the test expects. Without the answers a busy
  // machine may run the child's own set-up (closing its copies of the
  // test's ends) in between the test's counts.
  int ask[2];
  int answer[2];
  ASSERT_EQ(::pipe(ask), 0);
  ASSERT_EQ(::pipe(answer), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // one more fd per byte asked for; leaves when the pipe closes
    ::close(ask[1]);
    ::close(answer[0]);
    char byte = 0;
    bool ok = ::write(answer[1], "r", 1) == 1;
    while (ok && ::read(ask[0], &byte, 1) == 1) {
      ok = ::open("/dev/null", O_RDONLY) >= 0 && ::write(answer[1], "o", 1) == 1;
    }
    ::_exit(ok ? 0 : 1);
  }
  ::close(ask[0]);
  ::close(answer[1]);
  char reply = 0;
  ASSERT_EQ(::read(answer[0], &reply, 1), 1);  // the child's fd table is settled
  const std::string pid = std::to_string(child);
  const fs::path fd_dir = "/proc/" + pid + "/fd";
  const auto fd_count = [&] { return ::stat(fd_dir.c_str(), &st) == 0 ? st.st_size : -1; };
  const fs::path root = copy_tree().parent_path() / "one_process";
  fs::create_directory(root);
  fs::create_directory_symlink("/proc/" + pid, root / pid);

  DrmFdinfoScanner scanner(root);
  EXPECT_EQ(scanner.scan(at_seconds(1)).listed_processes, 1U);  // first sight
  // Scans 2..21: due twice; listed only at the periodic full listing (every
  // 300th turn, staggered by pid), should one fall here.
  std::size_t full_turns = 0;
  for (unsigned n = 2; n <= 21; ++n) full_turns += (n + static_cast<unsigned>(child)) % 300 == 0;
  std::size_t listed = 0;
  for (int i = 0; i < 20; ++i) listed += scanner.scan(at_seconds(2 + i)).listed_processes;
  EXPECT_EQ(listed, full_turns) << "due twice, the same fds";

  const auto before = fd_count();
  ASSERT_EQ(::write(ask[1], "x", 1), 1);
  ASSERT_EQ(::read(answer[0], &reply, 1), 1);  // the child opened one more
  ASSERT_EQ(fd_count(), before + 1);
  listed = 0;
  for (int i = 0; i < 10; ++i) listed += scanner.scan(at_seconds(30 + i)).listed_processes;
  EXPECT_EQ(listed, 1U) << "due once, one fd more";
  ::close(ask[1]);
  ::close(answer[0]);
  int child_status = 0;
  ::waitpid(child, &child_status, 0);
  EXPECT_TRUE(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
}

TEST_F(DrmFdinfoScanTest, MissingRootIsAnEmptyScan) {
  DrmFdinfoScanner scanner("/nonexistent/proc");
  const DrmScan scan = scanner.scan(at_seconds(1));
  EXPECT_TRUE(scan.clients.empty());
  EXPECT_EQ(scan.hidden_processes, 0U);
}

TEST_F(DrmFdinfoScanTest, OneScanPerRoundWhateverTheDeviceOrder) {
  DrmScanPerRound rounds(kDrmProc);
  const auto a = rounds.for_card("0000:03:00.0", at_seconds(1));
  EXPECT_EQ(rounds.for_card("0000:00:02.0", at_seconds(1.1)), a);  // same round
  const auto b = rounds.for_card("0000:00:02.0", at_seconds(2));   // that card again: next round
  EXPECT_NE(b, a);
  EXPECT_EQ(rounds.for_card("0000:03:00.0", at_seconds(2.1)), b);
  EXPECT_EQ(b->time.mono_ns, 2 * kSecondNs);
}

}  // namespace
}  // namespace gpuwatch
