// ROCm processes from the KFD's sysfs files, against the KFD tree in
// class/kfd of tests/fixtures/sysfs/mi300x.ttar and the processes of
// tests/fixtures/procfs/kfd_mi300x.ttar, as the build unpacks them
// (procfs/README.md gives the layout's sources and the expected lists).
#include "backends/amdgpu/amdgpu_kfd.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "backends/amdgpu/amdgpu_backend.h"
#include "tests/unit/backends/fixture_tree.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;
using amdgpu::parse_kfd_node_properties;

const fs::path kSysfs = fs::path(GPUWATCH_FIXTURE_TREES) / "sysfs";
const fs::path kProcfs = fs::path(GPUWATCH_FIXTURE_TREES) / "procfs/kfd_mi300x";

TEST(AmdgpuKfd, NodePlaceFromLocationIdAndDomain) {
  const auto p = parse_kfd_node_properties("simd_count 1216\nlocation_id 1280\ndomain 0\ndrm_render_minor 128\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->domain, 0U);
  EXPECT_EQ(p->bus, 0x05U);
  EXPECT_EQ(p->device, 0U);
  // bus 0xc1, device 0x1f, function 7, domain 1.
  const auto q = parse_kfd_node_properties("domain 1\nlocation_id 49663\n");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->domain, 1U);
  EXPECT_EQ(q->bus, 0xC1U);
  EXPECT_EQ(q->device, 0x1FU);
  // A partition's number in bits 31-28, or (early MI300 kernels) in the low
  // bits, leaves the bus and device alone.
  const auto high = parse_kfd_node_properties("location_id " + std::to_string(1280U | (3U << 28)) + "\n");
  ASSERT_TRUE(high);
  EXPECT_EQ(high->bus, 0x05U);
  EXPECT_EQ(high->device, 0U);
  const auto low = parse_kfd_node_properties("location_id 1283\n");
  ASSERT_TRUE(low);
  EXPECT_EQ(low->device, 0U);
  EXPECT_FALSE(parse_kfd_node_properties("simd_count 1216\n"));
  EXPECT_FALSE(parse_kfd_node_properties("location_id lots\n"));
  EXPECT_FALSE(parse_kfd_node_properties(""));
}

TEST(AmdgpuKfd, GpuIdsOfEachCardFromTheTopology) {
  EXPECT_EQ(amdgpu::kfd_gpu_ids_of(kSysfs / "mi300x", "0000:05:00.0"), std::vector<std::uint32_t>{52389});
  EXPECT_EQ(amdgpu::kfd_gpu_ids_of(kSysfs / "mi300x", "0000:15:00.0"), std::vector<std::uint32_t>{18200});
  EXPECT_TRUE(amdgpu::kfd_gpu_ids_of(kSysfs / "mi300x", "0001:05:00.0").empty());  // another domain
  EXPECT_TRUE(amdgpu::kfd_gpu_ids_of(kSysfs / "mi300x", "not a bus id").empty());
  EXPECT_TRUE(amdgpu::kfd_gpu_ids_of(kSysfs / "w7900", "0000:03:00.0").empty());  // no KFD there
}

TEST(AmdgpuKfd, ProcessesWithVramOnTheCardsNodes) {
  const std::uint32_t card0[] = {52389};
  const std::vector<amdgpu::KfdProcess> procs = amdgpu::kfd_processes(kSysfs / "mi300x", card0);
  // 4103's file says "garbage", 4104 is on the other card, 4106 has no vram file.
  ASSERT_EQ(procs.size(), 2U);
  EXPECT_EQ(procs[0].pid, 4101U);
  EXPECT_EQ(procs[0].vram_bytes, 3221225472U);
  EXPECT_EQ(procs[1].pid, 4102U);
  EXPECT_EQ(procs[1].vram_bytes, 2147483648U);
  // Both nodes of a partitioned card add up.
  const std::uint32_t both[] = {18200, 52389};
  const auto all = amdgpu::kfd_processes(kSysfs / "mi300x", both);
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[2].pid, 4104U);
  EXPECT_TRUE(amdgpu::kfd_processes(kSysfs / "mi300x", {}).empty());
}

class AmdgpuKfdBackendTest : public ::testing::Test {
 protected:
  std::unique_ptr<AmdgpuBackend> open(const fs::path& root) {
    std::string why_not;
    auto backend = AmdgpuBackend::open(testing::fixture_paths(root, kProcfs), why_not);
    EXPECT_NE(backend, nullptr) << why_not;
    return backend;
  }
  static std::vector<GpuProcess> processes_of(AmdgpuBackend& backend, std::size_t card, bool wanted = true) {
    DeviceValues v;
    std::vector<GpuProcess> processes;
    EXPECT_EQ(backend.read_slow(card, SlowReadPlan{.processes = wanted}, v, processes), ReadStatus::Ok);
    return processes;
  }
  fs::path copy_of(const std::string& tree) { return scratch_.copy_of(tree); }

 private:
  testing::ScratchTrees scratch_{kSysfs};
};

TEST_F(AmdgpuKfdBackendTest, RocmProcessesAppearWithTheirVramAndNoEngineUse) {
  auto backend = open(kSysfs / "mi300x");
  ASSERT_NE(backend, nullptr);
  for (int round = 0; round < 2; ++round) {  // the second round has fdinfo rates
    const std::vector<GpuProcess> p = processes_of(*backend, 0);
    ASSERT_EQ(p.size(), 2U) << "round " << round;
    EXPECT_EQ(p[0].pid, 4101U);  // only /dev/kfd open: not in fdinfo at all
    EXPECT_EQ(p[0].name, "python3");
    EXPECT_EQ(p[0].kind, "compute");
    EXPECT_EQ(p[0].used_memory_bytes, 3221225472U);
    EXPECT_FALSE(p[0].gpu_percent) << "engine time unknown, never 0";
    EXPECT_EQ(p[1].pid, 4102U);  // in fdinfo (1 MiB through renderD128) and in KFD (2 GiB): once
    EXPECT_EQ(p[1].name, "pt_main_thread");
    EXPECT_EQ(p[1].kind, "compute");
    EXPECT_EQ(p[1].used_memory_bytes, 2147483648U);
    EXPECT_FALSE(p[1].gpu_percent);
  }
  const std::vector<GpuProcess> other = processes_of(*backend, 1);
  ASSERT_EQ(other.size(), 1U);
  EXPECT_EQ(other[0].pid, 4104U);
  EXPECT_EQ(other[0].name, "rocminfo");
  EXPECT_EQ(other[0].device_index, 1);
  EXPECT_EQ(other[0].used_memory_bytes, 1073741824U);
}

TEST_F(AmdgpuKfdBackendTest, NoProcessListWantedNoneMade) {
  auto backend = open(kSysfs / "mi300x");
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(processes_of(*backend, 0, /*wanted=*/false).empty());
}

TEST_F(AmdgpuKfdBackendTest, UnreadableOrGarbageKfdFilesAreSkipped) {
  const fs::path root = copy_of("mi300x");
  const fs::path proc = root / "class/kfd/kfd/proc";
  for (const auto& [pid, text] : std::vector<std::pair<std::string, std::string>>{
           {"5001", ""}, {"5002", "-5\n"}, {"5003", "12 bytes\n"}, {"5004", "99999999999999999999999\n"},
           {"5005", std::string("\x00\xff\x01", 3)}}) {
    fs::create_directories(proc / pid);
    testing::write_file(proc / pid / "vram_52389", text);
  }
  fs::create_directories(proc / "5006/vram_52389");    // a directory, not a file
  testing::write_file(proc / "notapid", "1\n");        // neither a pid nor a directory
  testing::write_file(proc / "4101/vram_52389", "2\n");  // changed: read each round
  // A node whose properties are garbage is no card's.
  testing::write_file(root / "class/kfd/kfd/topology/nodes/2/properties", "\x01\x02 location_id\n");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr);
  const std::vector<GpuProcess> p = processes_of(*backend, 0);
  ASSERT_EQ(p.size(), 2U);
  EXPECT_EQ(p[0].pid, 4101U);
  EXPECT_EQ(p[0].used_memory_bytes, 2U);
  EXPECT_EQ(p[1].pid, 4102U);
  EXPECT_TRUE(processes_of(*backend, 1).empty());  // card2's node no longer places it
  // The whole KFD gone (driver unloaded) while running: nothing, no crash.
  fs::remove_all(root / "class/kfd");
  const std::vector<GpuProcess> after = processes_of(*backend, 0);
  ASSERT_EQ(after.size(), 1U);  // 4102 through fdinfo only, as before KFD was read
  EXPECT_EQ(after[0].pid, 4102U);
  EXPECT_EQ(after[0].used_memory_bytes, 1048576U);
}

}  // namespace
}  // namespace gpuwatch
