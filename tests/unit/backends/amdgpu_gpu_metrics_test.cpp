// The gpu_metrics parser on the fixture trees' binary files (written into the
// archives by tests/fixtures/sysfs/make_gpu_metrics.py, values and sources in
// tests/fixtures/README.md) and on tables built here, and the backend's use
// of it: what it adds to the sysfs files, never what they already give.
#include "backends/amdgpu/amdgpu_gpu_metrics.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "backends/amdgpu/amdgpu_backend.h"
#include "tests/unit/backends/fixture_tree.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;
using DM = DeviceMetric;
using amdgpu::parse_gpu_metrics;
using testing::has_metric;

const fs::path kSysfs = fs::path(GPUWATCH_FIXTURE_TREES) / "sysfs";
constexpr const char* kW7900Device = "devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0";
constexpr const char* kMi300xBusy = "devices/pci0000:00/0000:00:01.1/0000:03:00.0/0000:04:00.0/0000:05:00.0";
constexpr const char* kMi300xIdle = "devices/pci0000:10/0000:10:01.1/0000:13:00.0/0000:14:00.0/0000:15:00.0";

std::vector<unsigned char> bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A zeroed table of `size` bytes with its header.
std::vector<unsigned char> table(std::uint16_t size, std::uint8_t format, std::uint8_t content) {
  std::vector<unsigned char> b(size);
  b[0] = static_cast<unsigned char>(size & 0xFF);
  b[1] = static_cast<unsigned char>(size >> 8);
  b[2] = format;
  b[3] = content;
  return b;
}

template <typename T>
void put(std::vector<unsigned char>& b, std::size_t offset, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i) b[offset + i] = static_cast<unsigned char>(value >> (8 * i));
}

// ---- parser ----------------------------------------------------------------

TEST(AmdgpuGpuMetrics, Navi31V13FromTheFixture) {
  const auto m = parse_gpu_metrics(bytes_of(kSysfs / "w7900" / kW7900Device / "gpu_metrics"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->structure_size, 120);  // sizeof(gpu_metrics_v1_3), as the real dump says
  EXPECT_EQ(m->format_revision, 1);
  EXPECT_EQ(m->content_revision, 3);
  EXPECT_TRUE(m->known_layout);
  EXPECT_EQ(m->temp_edge_celsius, 38);
  EXPECT_EQ(m->temp_hotspot_celsius, 41);
  EXPECT_EQ(m->temp_mem_celsius, 57);
  EXPECT_EQ(m->gfx_activity_percent, 0);  // idle: 0, present
  EXPECT_EQ(m->umc_activity_percent, 1);
  EXPECT_EQ(m->socket_power_watts, 10);
  EXPECT_EQ(m->gfxclk_mhz, 5);
  EXPECT_EQ(m->uclk_mhz, 29);
  EXPECT_EQ(m->pcie_link_width, 16);
  EXPECT_EQ(m->pcie_link_gen, 4);  // 160 = 16.0 GT/s
  EXPECT_EQ(m->indep_throttle_status, std::uint64_t{1} << 36);  // TEMP_HOTSPOT
  EXPECT_FALSE(m->energy_joules);  // v1.3's accumulator has no documented unit
}

TEST(AmdgpuGpuMetrics, Mi300xV15AndV17FromTheFixture) {
  const auto busy = parse_gpu_metrics(bytes_of(kSysfs / "mi300x" / kMi300xBusy / "gpu_metrics"));
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->content_revision, 5);
  EXPECT_FALSE(busy->temp_edge_celsius);  // v1.4+ have no edge sensor
  EXPECT_EQ(busy->temp_hotspot_celsius, 49);
  EXPECT_EQ(busy->temp_mem_celsius, 43);
  EXPECT_EQ(busy->socket_power_watts, 305);
  EXPECT_EQ(busy->gfx_activity_percent, 97);
  EXPECT_EQ(busy->energy_joules, 1e6);  // 65536e6 units of 2^-16 J
  EXPECT_EQ(busy->gfxclk_mhz, 2106);
  EXPECT_EQ(busy->uclk_mhz, 1300);
  EXPECT_EQ(busy->pcie_link_gen, 5);
  EXPECT_FALSE(busy->indep_throttle_status);  // v1.5 has only the ASIC-dependent one

  const auto idle = parse_gpu_metrics(bytes_of(kSysfs / "mi300x" / kMi300xIdle / "gpu_metrics"));
  ASSERT_TRUE(idle);
  EXPECT_EQ(idle->content_revision, 7);
  EXPECT_EQ(idle->energy_joules, 250000);  // at 24 in v1.7, not at 16 as in v1.6
  EXPECT_EQ(idle->gfxclk_mhz, 500);
  EXPECT_EQ(idle->uclk_mhz, 900);
  EXPECT_EQ(idle->pcie_link_width, 16);
  EXPECT_EQ(idle->pcie_link_gen, 5);
  EXPECT_EQ(idle->socket_power_watts, 138);
}

TEST(AmdgpuGpuMetrics, AllBitsSetIsNotSupportedNeverANumber) {
  auto b = table(120, 1, 3);
  put<std::uint16_t>(b, 4, 0xFFFF);                    // edge
  put<std::uint16_t>(b, 6, 52);                        // hotspot
  put<std::uint16_t>(b, 22, 0xFFFF);                   // socket power
  put<std::uint16_t>(b, 74, 0xFFFF);                   // link width
  put<std::uint64_t>(b, 112, ~std::uint64_t{0});       // independent throttle status
  const auto m = parse_gpu_metrics(b);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->temp_edge_celsius);
  EXPECT_EQ(m->temp_hotspot_celsius, 52);
  EXPECT_FALSE(m->socket_power_watts);
  EXPECT_FALSE(m->pcie_link_width);
  EXPECT_FALSE(m->indep_throttle_status);
  EXPECT_FALSE(m->pcie_link_gen);  // speed 0 is no generation

  // v1.0's link fields are single bytes: 0xFF is its "not supported".
  auto v10 = table(80, 1, 0);
  v10[74] = 0xFF;
  v10[75] = 80;
  put<std::uint16_t>(v10, 18, 61);  // hotspot, after the timestamp in v1.0
  const auto old = parse_gpu_metrics(v10);
  ASSERT_TRUE(old);
  EXPECT_FALSE(old->pcie_link_width);
  EXPECT_EQ(old->pcie_link_gen, 3);
  EXPECT_EQ(old->temp_hotspot_celsius, 61);
}

TEST(AmdgpuGpuMetrics, ShortTablesGiveOnlyWhatTheyHold) {
  auto b = table(120, 1, 3);
  put<std::uint16_t>(b, 4, 40);
  put<std::uint16_t>(b, 18, 7);
  put<std::uint16_t>(b, 22, 90);
  put<std::uint64_t>(b, 112, 1);
  // A read that stopped after 20 bytes: umc (18..19) is there, power (22) not.
  const auto cut = parse_gpu_metrics(std::span(b).first(20));
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->temp_edge_celsius, 40);
  EXPECT_EQ(cut->umc_activity_percent, 7);
  EXPECT_FALSE(cut->socket_power_watts);
  EXPECT_FALSE(cut->indep_throttle_status);
  // A header that says 24 bytes: what follows is not the struct's.
  put<std::uint16_t>(b, 0, 24);
  const auto small = parse_gpu_metrics(b);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->socket_power_watts, 90);
  EXPECT_FALSE(small->indep_throttle_status);
  EXPECT_FALSE(small->gfxclk_mhz);
  // Less than a header.
  EXPECT_FALSE(parse_gpu_metrics(std::span(b).first(3)));
  EXPECT_FALSE(parse_gpu_metrics({}));
}

TEST(AmdgpuGpuMetrics, UnknownVersionsGiveTheHeaderAndNoFields) {
  for (const auto& [format, content] : {std::pair{1, 9}, std::pair{2, 0}, std::pair{3, 0}, std::pair{0, 0}}) {
    auto b = table(400, static_cast<std::uint8_t>(format), static_cast<std::uint8_t>(content));
    put<std::uint16_t>(b, 4, 50);
    put<std::uint16_t>(b, 28, 50);
    const auto m = parse_gpu_metrics(b);
    ASSERT_TRUE(m);
    EXPECT_FALSE(m->known_layout) << format << "." << content;
    EXPECT_TRUE(amdgpu::device_values_of(*m).empty()) << format << "." << content;
  }
}

TEST(AmdgpuGpuMetrics, ApuTablesInCentiUnits) {
  auto v24 = table(168, 2, 4);
  put<std::uint16_t>(v24, 4, 4523);    // temperature_gfx, centi-°C
  put<std::uint16_t>(v24, 28, 2500);   // average_gfx_activity, centi-%
  put<std::uint16_t>(v24, 40, 15000);  // average_socket_power, mW
  put<std::uint16_t>(v24, 76, 2800);   // current_gfxclk, MHz
  put<std::uint64_t>(v24, 120, std::uint64_t{1} << 5);  // FPPT
  const auto m = parse_gpu_metrics(v24);
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(*m->temp_edge_celsius, 45.23);
  EXPECT_EQ(m->gfx_activity_percent, 25);
  EXPECT_EQ(m->socket_power_watts, 15);
  EXPECT_EQ(m->gfxclk_mhz, 2800);
  EXPECT_EQ(m->indep_throttle_status, 32U);
  // v2.2 states no unit for temperature or power: neither is read.
  auto v22 = table(128, 2, 2);
  put<std::uint16_t>(v22, 4, 4523);
  put<std::uint16_t>(v22, 28, 1234);
  put<std::uint16_t>(v22, 40, 15000);
  const auto older = parse_gpu_metrics(v22);
  ASSERT_TRUE(older);
  EXPECT_FALSE(older->temp_edge_celsius);
  EXPECT_FALSE(older->socket_power_watts);
  EXPECT_DOUBLE_EQ(*older->gfx_activity_percent, 12.34);
}

TEST(AmdgpuGpuMetrics, IndependentThrottleBitsAsClockEventReasons) {
  using amdgpu::clock_event_reasons_from_indep_throttle;
  EXPECT_EQ(clock_event_reasons_from_indep_throttle(0), 0U);
  EXPECT_EQ(clock_event_reasons_from_indep_throttle(1ULL << 0), 0x4U);   // PPT0
  EXPECT_EQ(clock_event_reasons_from_indep_throttle(1ULL << 16), 0x4U);  // TDC_GFX
  EXPECT_EQ(clock_event_reasons_from_indep_throttle(1ULL << 36), 0x20U); // TEMP_HOTSPOT
  EXPECT_EQ(clock_event_reasons_from_indep_throttle(1ULL << 43), 0x20U); // TEMP_LIQUID1
  EXPECT_EQ(clock_event_reasons_from_indep_throttle(1ULL << 44), 0x40U); // VRHOT0
  EXPECT_EQ(clock_event_reasons_from_indep_throttle(1ULL << 47), 0x40U); // PROCHOT_GFX
  EXPECT_EQ(clock_event_reasons_from_indep_throttle(1ULL << 56), 0x4U);  // PPM
  EXPECT_EQ(clock_event_reasons_from_indep_throttle(1ULL << 57), 0x8U);  // FIT
  EXPECT_EQ(clock_event_reasons_from_indep_throttle((1ULL << 6) | (1ULL << 35)), 0x24U);
  EXPECT_EQ(clock_event_reasons_from_indep_throttle(1ULL << 12), 0U);    // no bit defined there
}

TEST(AmdgpuGpuMetrics, PcieGenerationFromTenthsOfGigatransfers) {
  EXPECT_EQ(amdgpu::pcie_gen_from_tenths_gts(25), 1);
  EXPECT_EQ(amdgpu::pcie_gen_from_tenths_gts(80), 3);
  EXPECT_EQ(amdgpu::pcie_gen_from_tenths_gts(320), 5);
  EXPECT_EQ(amdgpu::pcie_gen_from_tenths_gts(640), 6);
  EXPECT_FALSE(amdgpu::pcie_gen_from_tenths_gts(0));
  EXPECT_FALSE(amdgpu::pcie_gen_from_tenths_gts(16));  // GT/s, not tenths
}

// ---- backend ---------------------------------------------------------------

class AmdgpuGpuMetricsBackendTest : public ::testing::Test {
 protected:
  std::unique_ptr<AmdgpuBackend> open(const fs::path& root) {
    std::string why_not;
    auto backend = AmdgpuBackend::open(testing::fixture_paths(root), why_not);
    EXPECT_NE(backend, nullptr) << why_not;
    return backend;
  }
  static DeviceValues slow_round(AmdgpuBackend& backend, std::size_t card, bool costly = true) {
    DeviceValues v;
    std::vector<GpuProcess> processes;
    EXPECT_EQ(backend.read_slow(card, SlowReadPlan{.costly = costly}, v, processes), ReadStatus::Ok);
    return v;
  }
  fs::path copy_of(const std::string& tree) { return scratch_.copy_of(tree); }

 private:
  testing::ScratchTrees scratch_{kSysfs};
};

TEST_F(AmdgpuGpuMetricsBackendTest, W7900ThrottleReasonsComeFromGpuMetricsAndTheFilesKeepTheRest) {
  auto backend = open(kSysfs / "w7900");
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(has_metric(backend->devices()[0], DM::ClockEventReasons));
  const DeviceValues v = slow_round(*backend, 0);
  EXPECT_EQ(v.get(DM::ClockEventReasons), 0x20);  // TEMP_HOTSPOT -> sw_thermal_slowdown
  // hwmon's edge (56 °C under load), not the snapshot's 38: the file wins.
  EXPECT_EQ(v.get(DM::TempGpuCelsius), 56);
  EXPECT_EQ(v.get(DM::TempJunctionCelsius), 73);  // hwmon's junction, not the snapshot's hotspot 41
  EXPECT_EQ(v.get(DM::SmClockMhz), 1900);  // pp_dpm_sclk's level, not gfxclk 5
  EXPECT_FALSE(v.has(DM::EnergyJoules));   // neither hwmon nor v1.3 gives one
}

TEST_F(AmdgpuGpuMetricsBackendTest, GpuMetricsFillsWhatTheFilesLack) {
  const fs::path root = copy_of("w7900");
  const fs::path device = root / kW7900Device;
  fs::remove(device / "mem_busy_percent");
  for (const char* f : {"temp1_input", "temp2_input", "temp1_label", "temp2_label"}) {
    fs::remove(device / "hwmon/hwmon3" / f);
  }
  auto backend = open(root);
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(has_metric(backend->devices()[0], DM::MemUtilPercent));
  const DeviceValues v = slow_round(*backend, 0);
  EXPECT_EQ(v.get(DM::MemUtilPercent), 1);   // average_umc_activity
  EXPECT_EQ(v.get(DM::TempGpuCelsius), 38);  // temperature_edge
  EXPECT_EQ(v.get(DM::TempMemCelsius), 69);  // still hwmon's temp3 (mem)
  EXPECT_TRUE(has_metric(backend->devices()[0], DM::TempJunctionCelsius));
  EXPECT_EQ(v.get(DM::TempJunctionCelsius), 41);  // temperature_hotspot, without hwmon's junction
  DeviceValues fast;
  ASSERT_EQ(backend->read_fast(0, fast), ReadStatus::Ok);
  EXPECT_FALSE(fast.has(DM::MemUtilPercent));  // gpu_metrics stays off the fast path
}

TEST_F(AmdgpuGpuMetricsBackendTest, Mi300xEnergyFromTheAccumulatorInCostlyRounds) {
  auto backend = open(kSysfs / "mi300x");
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(has_metric(backend->devices()[0], DM::EnergyJoules));  // hwmon has no energy1_input
  EXPECT_FALSE(has_metric(backend->devices()[0], DM::ClockEventReasons));  // v1.5: no independent bits
  EXPECT_EQ(slow_round(*backend, 0).get(DM::EnergyJoules), 1e6);
  EXPECT_EQ(slow_round(*backend, 1).get(DM::EnergyJoules), 250000);
  EXPECT_FALSE(slow_round(*backend, 0, /*costly=*/false).has(DM::EnergyJoules));
  EXPECT_EQ(slow_round(*backend, 0).get(DM::TempGpuCelsius), 49);  // hwmon junction
}

TEST_F(AmdgpuGpuMetricsBackendTest, UnknownOrGarbageGpuMetricsIsSwitchedOffAtOpen) {
  const fs::path root = copy_of("mi300x");
  auto future = table(512, 1, 9);
  put<std::uint64_t>(future, 16, 123456789);
  {
    std::ofstream out(root / kMi300xBusy / "gpu_metrics", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(future.data()), static_cast<std::streamsize>(future.size()));
  }
  testing::write_file(root / kMi300xIdle / "gpu_metrics", "x");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr);
  for (const DeviceInfo& d : backend->devices()) EXPECT_FALSE(has_metric(d, DM::EnergyJoules)) << d.pci_bus_id;
  EXPECT_FALSE(slow_round(*backend, 0).has(DM::EnergyJoules));
  EXPECT_FALSE(slow_round(*backend, 1).has(DM::EnergyJoules));
}

TEST_F(AmdgpuGpuMetricsBackendTest, SuspendedGpuIsNotAskedForGpuMetrics) {
  const fs::path root = copy_of("w7900");
  testing::write_file(root / kW7900Device / "power/runtime_status", "suspended\n");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr);
  EXPECT_FALSE(has_metric(backend->devices()[0], DM::ClockEventReasons));
  testing::write_file(root / kW7900Device / "power/runtime_status", "active\n");
  EXPECT_FALSE(slow_round(*backend, 0).has(DM::ClockEventReasons));
}

}  // namespace
}  // namespace gpuwatch
