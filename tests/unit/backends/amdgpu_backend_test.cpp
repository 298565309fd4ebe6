// AmdgpuBackend against the sysfs fixture trees that the build unpacks from
// tests/fixtures/sysfs/*.ttar (tests/fixtures/README.md says where each value
// comes from). Tests that change a tree work on a copy in a temporary directory.
#include "backends/amdgpu/amdgpu_backend.h"

#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backends/amdgpu/amdgpu_parse.h"
#include "backends/drm_fdinfo/engine_classes.h"
#include "base/unique_fd.h"
#include "tests/unit/backends/fixture_tree.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;
using DM = DeviceMetric;
using testing::has_metric;
using testing::supported_names;
using testing::write_file;

const fs::path kSysfs = fs::path(GPUWATCH_FIXTURE_TREES) / "sysfs";
// The discrete card's PCI device, in w7900/ (the W7900) and bmc/ (the RX 7900 XTX).
constexpr const char* kCardDevice = "devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0";

// Every metric one read filled has the cadence of that read.
void expect_cadence(const DeviceValues& v, std::initializer_list<Cadence> allowed) {
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (!v.has(static_cast<DM>(m))) continue;
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), kDeviceMetrics[m].cadence), allowed.end())
        << kDeviceMetrics[m].name;
  }
}

class AmdgpuBackendTest : public ::testing::Test {
 protected:
  std::unique_ptr<AmdgpuBackend> open(const fs::path& root, const fs::path& procfs = "/nonexistent/proc") {
    why_not.clear();
    return AmdgpuBackend::open(testing::fixture_paths(root, procfs), why_not);
  }
  // A copy of a fixture tree that a test may change.
  fs::path copy_of(const std::string& tree) { return scratch_.copy_of(tree); }

  std::string why_not;

 private:
  testing::ScratchTrees scratch_{kSysfs};
};

// ---- parsers ---------------------------------------------------------------

TEST(AmdgpuParse, PpDpmCurrentLevelAndHighestLevel) {
  const auto c = amdgpu::parse_pp_dpm("0: 500Mhz \n1: 1900Mhz *\n2: 2495Mhz \n");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->current_mhz, 1900U);
  EXPECT_EQ(c->max_mhz, 2495U);
  // The highest level is the maximum wherever it is listed.
  EXPECT_EQ(amdgpu::parse_pp_dpm("0: 2100Mhz\n1: 500Mhz *\n")->max_mhz, 2100U);
}

TEST(AmdgpuParse, PpDpmLevelsWithoutIndexOrWithLetters) {
  const auto no_index = amdgpu::parse_pp_dpm("500Mhz\n1800Mhz *\n");
  ASSERT_TRUE(no_index);
  EXPECT_EQ(no_index->current_mhz, 1800U);
  EXPECT_EQ(no_index->max_mhz, 1800U);
  const auto sleep = amdgpu::parse_pp_dpm("S: 19Mhz *\n0: 500Mhz\n1: 2500MHz\n");
  ASSERT_TRUE(sleep);
  EXPECT_EQ(sleep->current_mhz, 19U);
  EXPECT_EQ(sleep->max_mhz, 2500U);
}

TEST(AmdgpuParse, PpDpmWithoutCurrentOrMalformed) {
  const auto none = amdgpu::parse_pp_dpm("0: 500Mhz\n1: 2100Mhz\n");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->current_mhz);
  EXPECT_EQ(none->max_mhz, 2100U);
  EXPECT_FALSE(amdgpu::parse_pp_dpm(""));
  EXPECT_FALSE(amdgpu::parse_pp_dpm("\n\n"));
  EXPECT_FALSE(amdgpu::parse_pp_dpm("0: 500Mhz\n1: fastMhz *\n"));
  EXPECT_FALSE(amdgpu::parse_pp_dpm("0: 500GHz\n"));
  EXPECT_FALSE(amdgpu::parse_pp_dpm("0: 99999999999Mhz\n"));  // past uint32
  // pp_dpm_pcie's lines are not clock tables.
  EXPECT_FALSE(amdgpu::parse_pp_dpm("0: 2.5GT/s, x1 310Mhz \n1: 16.0GT/s, x16 619Mhz *\n"));
}

TEST(AmdgpuParse, PcieGenerationFromLinkSpeed) {
  EXPECT_EQ(amdgpu::pcie_gen_from_speed("2.5 GT/s PCIe\n"), 1);
  EXPECT_EQ(amdgpu::pcie_gen_from_speed("5.0 GT/s PCIe\n"), 2);
  EXPECT_EQ(amdgpu::pcie_gen_from_speed("8.0 GT/s PCIe\n"), 3);
  EXPECT_EQ(amdgpu::pcie_gen_from_speed("16.0 GT/s PCIe\n"), 4);
  EXPECT_EQ(amdgpu::pcie_gen_from_speed("32.0 GT/s PCIe\n"), 5);
  EXPECT_EQ(amdgpu::pcie_gen_from_speed("64.0 GT/s PCIe\n"), 6);
  EXPECT_EQ(amdgpu::pcie_gen_from_speed("5 GT/s\n"), 2);  // older kernels' spelling
  EXPECT_FALSE(amdgpu::pcie_gen_from_speed("Unknown\n"));
  EXPECT_FALSE(amdgpu::pcie_gen_from_speed("12.0 GT/s PCIe\n"));
  EXPECT_FALSE(amdgpu::pcie_gen_from_speed("16.0 GB/s\n"));
  EXPECT_FALSE(amdgpu::pcie_gen_from_speed(""));
}

TEST(AmdgpuParse, SysfsIntegers) {
  EXPECT_EQ(amdgpu::parse_sysfs_integer("42\n"), 42);
  EXPECT_EQ(amdgpu::parse_sysfs_integer("-273150\n"), -273150);  // temp*_crit_hyst
  EXPECT_EQ(amdgpu::parse_sysfs_integer("205822885888\n"), 205822885888);
  EXPECT_FALSE(amdgpu::parse_sysfs_integer(""));
  EXPECT_FALSE(amdgpu::parse_sysfs_integer("12 W\n"));
  EXPECT_FALSE(amdgpu::parse_sysfs_integer("0x1002\n"));
}

// ---- discovery -------------------------------------------------------------

TEST_F(AmdgpuBackendTest, W7900IsFoundOnceBesideItsConnectorsAndRenderNode) {
  auto backend = open(kSysfs / "w7900");
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_EQ(backend->name(), "amdgpu");
  const std::vector<DeviceInfo> devices = backend->devices();
  // class/drm also has card1-DP-1, card1-DP-2, renderD128 and version.
  ASSERT_EQ(devices.size(), 1U);
  const DeviceInfo& d = devices[0];
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d.backend, "amdgpu");
  EXPECT_EQ(d.vendor, "AMD");
  EXPECT_EQ(d.name, "AMD Radeon Pro W7900");  // no product_name: the built-in table by PCI id
  EXPECT_EQ(d.pci_bus_id, "0000:03:00.0");
  EXPECT_EQ(d.uuid, "");                // no unique_id
  EXPECT_EQ(d.driver_version, "");      // the kernel's own driver has no version file
  EXPECT_EQ(d.static_values.get(DM::MemTotalBytes), 51539607552.0);
  EXPECT_EQ(d.static_values.get(DM::SmClockMaxMhz), 2495);
  EXPECT_EQ(d.static_values.get(DM::MemClockMaxMhz), 1125);
  EXPECT_EQ(d.static_values.get(DM::PcieLinkGenMax), 4);
  EXPECT_EQ(d.static_values.get(DM::PcieLinkWidthMax), 16);
  EXPECT_EQ(supported_names(d),
            testing::with_engine_classes(
                {"gpu_util_percent", "mem_util_percent", "mem_used_bytes", "mem_total_bytes", "power_watts",
                 "power_limit_watts", "temp_gpu_celsius", "temp_mem_celsius", "temp_junction_celsius",
                 "sm_clock_mhz", "mem_clock_mhz", "sm_clock_max_mhz", "mem_clock_max_mhz", "fan_percent",
                 "clock_event_reasons", "pcie_link_gen", "pcie_link_width", "pcie_link_gen_max",
                 "pcie_link_width_max"}));
}

TEST_F(AmdgpuBackendTest, Mi300xNameIdsAndDriverVersion) {
  auto backend = open(kSysfs / "mi300x");
  ASSERT_NE(backend, nullptr) << why_not;
  const std::vector<DeviceInfo> devices = backend->devices();
  ASSERT_EQ(devices.size(), 2U);
  EXPECT_EQ(devices[0].index, 0);
  EXPECT_EQ(devices[1].index, 1);
  EXPECT_EQ(devices[0].name, "AMD Instinct MI300X OAM");
  EXPECT_EQ(devices[0].pci_bus_id, "0000:05:00.0");
  EXPECT_EQ(devices[1].pci_bus_id, "0000:15:00.0");
  EXPECT_EQ(devices[0].uuid, "5a9f3c71e24b08d6");
  EXPECT_EQ(devices[1].uuid, "c03e8b17f5a2d964");
  EXPECT_EQ(devices[0].driver_version, "6.12.12");
  EXPECT_EQ(devices[0].static_values.get(DM::MemTotalBytes), 205822885888.0);
  EXPECT_EQ(devices[0].static_values.get(DM::SmClockMaxMhz), 2100);
  EXPECT_EQ(devices[0].static_values.get(DM::PcieLinkGenMax), 5);
}

TEST_F(AmdgpuBackendTest, BmcIsSkippedAndTheAmdCardBesideItFound) {
  auto backend = open(kSysfs / "bmc");
  ASSERT_NE(backend, nullptr) << why_not;
  const std::vector<DeviceInfo> devices = backend->devices();
  // card0 is the ASPEED BMC's display (vendor 0x1a03, driver ast).
  ASSERT_EQ(devices.size(), 1U);
  EXPECT_EQ(devices[0].index, 0);
  EXPECT_EQ(devices[0].pci_bus_id, "0000:03:00.0");
  EXPECT_EQ(devices[0].name, "AMD GPU 0x744c");  // four Radeon RX models: not in the built-in table
}

TEST_F(AmdgpuBackendTest, NoAmdGpuIsNoBackendAndNothingToSay) {
  EXPECT_EQ(open(kSysfs / "does-not-exist"), nullptr);
  EXPECT_EQ(why_not, "");
  // Only the BMC: nothing of AMD's to explain either.
  const fs::path root = copy_of("bmc");
  fs::remove(root / "class/drm/card1");
  EXPECT_EQ(open(root), nullptr);
  EXPECT_EQ(why_not, "");
}

TEST_F(AmdgpuBackendTest, AmdGpuOnAnotherDriverIsExplained) {
  const fs::path root = copy_of("bmc");
  const fs::path driver = root / kCardDevice / "driver";
  fs::remove(driver);
  fs::create_directories(root / "bus/pci/drivers/radeon");
  fs::create_symlink("../../../../../../bus/pci/drivers/radeon", driver);
  EXPECT_EQ(open(root), nullptr);
  EXPECT_EQ(why_not, "AMD: no GPU driven by amdgpu (0000:03:00.0 (radeon))");
}

TEST_F(AmdgpuBackendTest, BusIdFromTheResolvedDeviceWhenTheLinkDoesNotEndInOne) {
  const fs::path root = copy_of("w7900");
  const fs::path link = root / kCardDevice / "drm/card1/device";
  fs::remove(link);
  fs::create_symlink("../../../0000:03:00.0/.", link);
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_EQ(backend->devices()[0].pci_bus_id, "0000:03:00.0");
}

// ---- values ----------------------------------------------------------------

TEST_F(AmdgpuBackendTest, W7900ValuesInCatalogueUnits) {
  auto backend = open(kSysfs / "w7900");
  ASSERT_NE(backend, nullptr) << why_not;

  DeviceValues fast;
  ASSERT_EQ(backend->read_fast(0, fast), ReadStatus::Ok);
  EXPECT_EQ(fast.get(DM::GpuUtilPercent), 64);
  EXPECT_EQ(fast.get(DM::MemUtilPercent), 23);
  EXPECT_EQ(fast.get(DM::MemUsedBytes), 21474836480.0);
  EXPECT_EQ(fast.get(DM::MemTotalBytes), 51539607552.0);
  EXPECT_EQ(fast.get(DM::PowerWatts), 164.6);  // power1_average, µW
  expect_cadence(fast, {Cadence::Fast});

  DeviceValues slow;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, slow, processes), ReadStatus::Ok);
  EXPECT_EQ(slow.get(DM::PowerLimitWatts), 295);    // power1_cap, µW
  EXPECT_EQ(slow.get(DM::TempGpuCelsius), 56);      // edge (junction is 73), m°C
  EXPECT_EQ(slow.get(DM::TempMemCelsius), 69);
  EXPECT_EQ(slow.get(DM::TempJunctionCelsius), 73);  // temp2, labelled junction
  EXPECT_DOUBLE_EQ(*slow.get(DM::FanPercent), 102 * 100.0 / 255);  // pwm1 / pwm1_max
  EXPECT_EQ(slow.get(DM::SmClockMhz), 1900);        // the '*' line of pp_dpm_sclk
  EXPECT_EQ(slow.get(DM::MemClockMhz), 1125);
  EXPECT_EQ(slow.get(DM::PcieLinkGen), 4);          // "16.0 GT/s PCIe"
  EXPECT_EQ(slow.get(DM::PcieLinkWidth), 16);
  EXPECT_FALSE(slow.has(DM::EnergyJoules));         // no energy1_input on this card
  expect_cadence(slow, {Cadence::Slow, Cadence::Costly});
  EXPECT_TRUE(processes.empty());                   // no procfs given
}

// One slow round's process list (its values are other tests' business).
std::vector<GpuProcess> round_of_processes(AmdgpuBackend& backend, DeviceValues* values = nullptr) {
  DeviceValues ignored;
  std::vector<GpuProcess> processes;
  EXPECT_EQ(backend.read_slow(0, SlowReadPlan{}, values != nullptr ? *values : ignored, processes), ReadStatus::Ok);
  return processes;
}

// Processes from DRM fdinfo: tests/fixtures/procfs/README.md gives the values.
TEST_F(AmdgpuBackendTest, W7900ListsItsDrmClientsFromFdinfo) {
  const fs::path procfs = copy_of("w7900").parent_path() / "proc";
  fs::copy(fs::path(GPUWATCH_FIXTURE_TREES) / "procfs/drm_amdgpu", procfs,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  auto backend = open(kSysfs / "w7900", procfs);
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_EQ(backend->hidden_processes(), 0U);  // nothing listed yet
  DeviceValues values;
  std::vector<GpuProcess> processes = round_of_processes(*backend, &values);
  for (const DM engine_class : kEngineClassMetrics) EXPECT_FALSE(values.has(engine_class));  // no rate yet
  EXPECT_EQ(backend->hidden_processes(), 1U);  // 3001, whose fds cannot be listed
  // glxgears' client once (two fds, and a forked child's), python3's; not
  // the xe client on another slot, not Xorg's fd without usage stats.
  ASSERT_EQ(processes.size(), 2U);
  EXPECT_EQ(processes[0].pid, 2001U);
  EXPECT_EQ(processes[0].device_index, 0);
  EXPECT_EQ(processes[0].name, "glxgears");
  EXPECT_EQ(processes[0].kind, "graphics");
  EXPECT_EQ(processes[0].used_memory_bytes, 2068U * 1024);  // drm-memory-vram
  EXPECT_FALSE(processes[0].gpu_percent);                   // first round: no rate yet
  EXPECT_EQ(processes[1].pid, 2003U);
  EXPECT_EQ(processes[1].name, "python3");
  EXPECT_EQ(processes[1].kind, "compute");                  // compute 8.25 s, gfx 1.5 ms
  EXPECT_EQ(processes[1].used_memory_bytes, 1610612736U);   // drm-resident-vram: 1536 MiB

  // The next round: python3's compute ring busy 0.2 s more, glxgears idle.
  std::ofstream(procfs / "2003/fdinfo/7", std::ios::app) << "drm-engine-compute:\t8450000000 ns\n";
  values = DeviceValues{};
  processes = round_of_processes(*backend, &values);
  ASSERT_EQ(processes.size(), 2U);
  ASSERT_TRUE(processes[0].gpu_percent);
  EXPECT_EQ(*processes[0].gpu_percent, 0);
  ASSERT_TRUE(processes[1].gpu_percent);
  // 0.2 s over a wall interval that the test does not control: above 0,
  // at most 100, and never a timed assertion.
  EXPECT_GT(*processes[1].gpu_percent, 0);
  EXPECT_LE(*processes[1].gpu_percent, 100);
  // The card's engine classes: compute as python3's (the only client on
  // it), gfx and dma (SDMA: copy) idle, no video engine in any client.
  EXPECT_EQ(values.get(DM::EngineComputePercent), processes[1].gpu_percent);
  EXPECT_EQ(values.get(DM::EngineGraphicsPercent), 0);
  EXPECT_EQ(values.get(DM::EngineCopyPercent), 0);
  EXPECT_FALSE(values.has(DM::EngineVideoPercent));
  EXPECT_FALSE(values.has(DM::EngineVideoEnhancePercent));
}

TEST_F(AmdgpuBackendTest, Mi300xPowerFromInputJunctionTemperatureAndNoFan) {
  auto backend = open(kSysfs / "mi300x");
  ASSERT_NE(backend, nullptr) << why_not;
  const std::vector<DeviceInfo> devices = backend->devices();
  for (const DeviceInfo& d : devices) {
    EXPECT_TRUE(has_metric(d, DM::PowerWatts));
    EXPECT_TRUE(has_metric(d, DM::TempGpuCelsius));
    EXPECT_FALSE(has_metric(d, DM::FanPercent)) << "no fan on an OAM module";
    // No hwmon energy1_input: the counter is gpu_metrics' accumulator.
    EXPECT_TRUE(has_metric(d, DM::EnergyJoules));
  }

  DeviceValues busy;
  ASSERT_EQ(backend->read_fast(0, busy), ReadStatus::Ok);
  EXPECT_EQ(busy.get(DM::GpuUtilPercent), 97);
  EXPECT_EQ(busy.get(DM::MemUsedBytes), 3221225472.0);
  EXPECT_EQ(busy.get(DM::PowerWatts), 305);  // power1_input: MI300X has no power1_average
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, busy, processes), ReadStatus::Ok);
  EXPECT_EQ(busy.get(DM::TempGpuCelsius), 49);  // junction: there is no edge sensor
  EXPECT_EQ(busy.get(DM::TempJunctionCelsius), 49);
  EXPECT_EQ(busy.get(DM::TempMemCelsius), 43);
  EXPECT_EQ(busy.get(DM::PowerLimitWatts), 750);
  EXPECT_EQ(busy.get(DM::SmClockMhz), 2100);
  EXPECT_EQ(busy.get(DM::MemClockMhz), 1300);
  EXPECT_EQ(busy.get(DM::PcieLinkGen), 5);
  EXPECT_FALSE(busy.has(DM::FanPercent));

  DeviceValues idle;
  ASSERT_EQ(backend->read_fast(1, idle), ReadStatus::Ok);
  ASSERT_EQ(backend->read_slow(1, SlowReadPlan{}, idle, processes), ReadStatus::Ok);
  EXPECT_EQ(idle.get(DM::GpuUtilPercent), 0);  // an idle GPU reads 0, present
  EXPECT_EQ(idle.get(DM::PowerWatts), 138);
  EXPECT_EQ(idle.get(DM::SmClockMhz), 500);
  EXPECT_EQ(idle.get(DM::TempGpuCelsius), 38);
  EXPECT_EQ(idle.get(DM::TempJunctionCelsius), 38);
}

TEST_F(AmdgpuBackendTest, TemperatureWithoutLabelsIsTemp1AsEdge) {
  const fs::path root = copy_of("w7900");
  const fs::path hwmon = root / kCardDevice / "hwmon/hwmon3";
  for (const char* file : {"temp1_label", "temp2_label", "temp3_label"}) fs::remove(hwmon / file);
  fs::remove(root / kCardDevice / "gpu_metrics");  // which would give the mem temperature
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_FALSE(has_metric(backend->devices()[0], DM::TempMemCelsius));
  DeviceValues v;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  EXPECT_EQ(v.get(DM::TempGpuCelsius), 56);
  EXPECT_FALSE(v.has(DM::TempMemCelsius));
  EXPECT_FALSE(v.has(DM::TempJunctionCelsius));  // temp2 is not known to be the junction
}

TEST_F(AmdgpuBackendTest, PowerAverageThatDoesNotReadFallsBackToInput) {
  const fs::path root = copy_of("w7900");
  const fs::path hwmon = root / kCardDevice / "hwmon/hwmon3";
  write_file(hwmon / "power1_average", "");  // the SMU lacks the sensor: the read fails
  write_file(hwmon / "power1_input", "171000000\n");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  DeviceValues v;
  ASSERT_EQ(backend->read_fast(0, v), ReadStatus::Ok);
  EXPECT_EQ(v.get(DM::PowerWatts), 171);
}

TEST_F(AmdgpuBackendTest, FanInRpmOnlyAgainstFanMax) {
  const fs::path root = copy_of("w7900");
  const fs::path hwmon = root / kCardDevice / "hwmon/hwmon3";
  fs::remove(hwmon / "pwm1");
  {
    auto backend = open(root);
    ASSERT_NE(backend, nullptr) << why_not;
    DeviceValues v;
    std::vector<GpuProcess> processes;
    ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
    EXPECT_EQ(v.get(DM::FanPercent), 50);  // fan1_input 1650 of fan1_max 3300 RPM
  }
  fs::remove(hwmon / "fan1_max");  // RPM with nothing to scale it by: no percentage
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_FALSE(has_metric(backend->devices()[0], DM::FanPercent));
  DeviceValues v;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  EXPECT_FALSE(v.has(DM::FanPercent));
}

TEST_F(AmdgpuBackendTest, EnergyCounterOnlyInCostlyRounds) {
  const fs::path root = copy_of("w7900");
  write_file(root / kCardDevice / "hwmon/hwmon3/energy1_input", "123456789000\n");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_TRUE(has_metric(backend->devices()[0], DM::EnergyJoules));
  DeviceValues v;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{.costly = false}, v, processes), ReadStatus::Ok);
  EXPECT_FALSE(v.has(DM::EnergyJoules));
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{.costly = true}, v, processes), ReadStatus::Ok);
  EXPECT_EQ(v.get(DM::EnergyJoules), 123456.789);  // µJ -> J
}

TEST_F(AmdgpuBackendTest, UnparsableFileAtOpenIsAbsentNotZero) {
  const fs::path root = copy_of("w7900");
  write_file(root / kCardDevice / "mem_busy_percent", "n/a\n");
  write_file(root / kCardDevice / "pp_dpm_mclk", "");
  fs::remove(root / kCardDevice / "gpu_metrics");  // which would fill both in
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  const DeviceInfo d = backend->devices()[0];
  EXPECT_FALSE(has_metric(d, DM::MemUtilPercent));
  EXPECT_FALSE(has_metric(d, DM::MemClockMhz));
  EXPECT_FALSE(has_metric(d, DM::MemClockMaxMhz));
  EXPECT_TRUE(has_metric(d, DM::GpuUtilPercent));
  DeviceValues v;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_fast(0, v), ReadStatus::Ok);
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  EXPECT_FALSE(v.has(DM::MemUtilPercent));
  EXPECT_FALSE(v.has(DM::MemClockMhz));
  EXPECT_EQ(v.get(DM::GpuUtilPercent), 64);
}

// ---- runtime suspend and loss ----------------------------------------------

// Records which files of one directory are opened (not its subdirectories').
class OpenWatch {
 public:
  explicit OpenWatch(const fs::path& dir) : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    ok_ = fd_.valid() && ::inotify_add_watch(fd_.get(), dir.c_str(), IN_OPEN) >= 0;
  }
  [[nodiscard]] bool ok() const { return ok_; }
  // Names opened since the last call.
  std::set<std::string> opened() {
    std::set<std::string> names;
    alignas(inotify_event) char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fd_.get(), buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t i = 0; i < n;) {
        inotify_event event{};
        std::memcpy(&event, buf + i, sizeof event);
        if (event.len > 0) names.emplace(buf + i + sizeof event);
        i += static_cast<ssize_t>(sizeof event + event.len);
      }
    }
    return names;
  }

 private:
  UniqueFd fd_;
  bool ok_ = false;
};

TEST_F(AmdgpuBackendTest, SuspendedGpuIsNotReadUntilItWakes) {
  const fs::path root = copy_of("bmc");
  const fs::path device = root / kCardDevice;  // the RX 7900 XTX, runtime-suspended
  OpenWatch device_opens(device);
  OpenWatch hwmon_opens(device / "hwmon/hwmon2");
  ASSERT_TRUE(device_opens.ok() && hwmon_opens.ok()) << "inotify unavailable";

  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  const DeviceInfo d = backend->devices()[0];
  // At open only what the driver keeps without the GPU: identity files, and
  // the sensors' presence, not their values.
  // (revision, like vendor and device, is the PCI core's copy of the config
  // header: its name from amdgpu.ids needs it.)
  const std::set<std::string> identity{"vendor", "device", "revision", "product_name", "unique_id", "hwmon"};
  for (const std::string& name : device_opens.opened()) EXPECT_TRUE(identity.count(name)) << name;
  for (const std::string& name : hwmon_opens.opened()) {
    EXPECT_TRUE(name == "name" || name.ends_with("_label")) << name;
  }
  EXPECT_TRUE(has_metric(d, DM::GpuUtilPercent));  // the files are there
  EXPECT_TRUE(has_metric(d, DM::TempGpuCelsius));
  EXPECT_TRUE(has_metric(d, DM::FanPercent));
  EXPECT_TRUE(d.static_values.empty()) << "maxima need an awake GPU";

  DeviceValues v;
  std::vector<GpuProcess> processes;
  EXPECT_EQ(backend->read_fast(0, v), ReadStatus::Ok);
  EXPECT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(device_opens.opened(), std::set<std::string>{});
  EXPECT_EQ(hwmon_opens.opened(), std::set<std::string>{});

  write_file(device / "power/runtime_status", "active\n");
  ASSERT_EQ(backend->read_fast(0, v), ReadStatus::Ok);
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  EXPECT_EQ(v.get(DM::GpuUtilPercent), 2);
  EXPECT_EQ(v.get(DM::PowerWatts), 21);
  EXPECT_EQ(v.get(DM::TempGpuCelsius), 38);
  EXPECT_EQ(v.get(DM::FanPercent), 0);  // zero-RPM idle: 0 is a value, not absent
  EXPECT_TRUE(device_opens.opened().count("gpu_busy_percent"));
  EXPECT_TRUE(hwmon_opens.opened().count("power1_average"));
}

TEST_F(AmdgpuBackendTest, RemovedGpuIsLostWhileTheOtherGoesOn) {
  const fs::path root = copy_of("mi300x");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  ASSERT_EQ(backend->devices().size(), 2U);
  DeviceValues v;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_fast(1, v), ReadStatus::Ok);

  // card2's PCI device falls off the bus: its whole sysfs directory goes.
  fs::remove_all(root / "devices/pci0000:10");
  DeviceValues after;
  EXPECT_EQ(backend->read_fast(1, after), ReadStatus::Lost);
  EXPECT_EQ(backend->read_slow(1, SlowReadPlan{}, after, processes), ReadStatus::Lost);
  EXPECT_TRUE(after.empty());
  DeviceValues other;
  EXPECT_EQ(backend->read_fast(0, other), ReadStatus::Ok);
  EXPECT_EQ(other.get(DM::GpuUtilPercent), 97);
  EXPECT_EQ(backend->read_slow(0, SlowReadPlan{}, other, processes), ReadStatus::Ok);
  EXPECT_EQ(backend->read_fast(2, other), ReadStatus::Lost);  // no such device
}

TEST_F(AmdgpuBackendTest, OneSensorMissingIsNotALostGpu) {
  const fs::path root = copy_of("w7900");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  fs::remove(root / kCardDevice / "hwmon/hwmon3/temp3_input");
  DeviceValues v;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  EXPECT_FALSE(v.has(DM::TempMemCelsius));
  EXPECT_EQ(v.get(DM::TempGpuCelsius), 56);
}

TEST_F(AmdgpuBackendTest, FastAndSlowReadsMayOverlap) {
  auto backend = open(kSysfs / "mi300x");
  ASSERT_NE(backend, nullptr) << why_not;
  std::atomic<bool> stop{false};
  std::atomic<int> slow_reads{0};
  std::thread slow([&] {
    while (!stop) {
      DeviceValues v;
      std::vector<GpuProcess> processes;
      if (backend->read_slow(0, SlowReadPlan{}, v, processes) == ReadStatus::Ok && v.get(DM::SmClockMhz) == 2100) {
        ++slow_reads;
      }
    }
  });
  int fast_reads = 0;
  for (int i = 0; i < 2000; ++i) {
    DeviceValues v;
    if (backend->read_fast(0, v) == ReadStatus::Ok && v.get(DM::PowerWatts) == 305) ++fast_reads;
  }
  stop = true;
  slow.join();
  EXPECT_EQ(fast_reads, 2000);
  EXPECT_GT(slow_reads.load(), 0);
}

// ---- registry --------------------------------------------------------------

class BackendRegistryTest : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("FAKE_NVML_SET"); }
};

TEST_F(BackendRegistryTest, AmdGpusWithoutNvidiaDriverAreNumberedFromZero) {
  SystemPaths paths;
  paths.sysfs_root = kSysfs / "mi300x";
  paths.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  const BackendSet set = open_backends(paths);
  ASSERT_EQ(set.backends.size(), 1U);
  EXPECT_EQ(set.backends[0].backend->name(), "amdgpu");
  EXPECT_EQ(set.backends[0].first_global_index, 0);
  ASSERT_EQ(set.devices.size(), 2U);
  EXPECT_EQ(set.devices[0].index, 0);
  EXPECT_EQ(set.devices[1].index, 1);
  EXPECT_EQ(set.devices[1].pci_bus_id, "0000:15:00.0");
  ASSERT_EQ(set.notes.size(), 1U);  // NVIDIA's reason; AMD found its GPUs
  EXPECT_EQ(set.notes[0].rfind("NVIDIA", 0), 0U) << set.notes[0];
}

TEST_F(BackendRegistryTest, AmdGpusFollowNvidiaGpusWithUniqueIndices) {
  setenv("FAKE_NVML_SET", "pcie_delay_ms=0;energy_delay_ms=0;gpu_count=2", 1);
  SystemPaths paths;
  paths.sysfs_root = kSysfs / "mi300x";
  paths.nvml_library = FAKE_NVML_PATH;
  const BackendSet set = open_backends(paths);
  ASSERT_EQ(set.backends.size(), 2U);
  EXPECT_EQ(set.backends[0].backend->name(), "nvml");
  EXPECT_EQ(set.backends[1].backend->name(), "amdgpu");
  EXPECT_EQ(set.backends[1].first_global_index, 2);
  ASSERT_EQ(set.devices.size(), 4U);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(set.devices[static_cast<std::size_t>(i)].index, i);
  EXPECT_EQ(set.devices[1].vendor, "NVIDIA");
  EXPECT_EQ(set.devices[2].vendor, "AMD");
  EXPECT_EQ(set.devices[2].pci_bus_id, "0000:05:00.0");
  EXPECT_TRUE(set.notes.empty());
  // The backend still answers for its own local index.
  DeviceValues v;
  ASSERT_EQ(set.backends[1].backend->read_fast(0, v), ReadStatus::Ok);
  EXPECT_EQ(v.get(DM::GpuUtilPercent), 97);
}

TEST_F(BackendRegistryTest, NoGpuAnywhereGivesOnlyNvidiasReason) {
  SystemPaths paths;
  paths.sysfs_root = kSysfs / "does-not-exist";
  paths.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  const BackendSet set = open_backends(paths);
  EXPECT_TRUE(set.devices.empty());
  EXPECT_TRUE(set.backends.empty());
  ASSERT_EQ(set.notes.size(), 1U);
  EXPECT_EQ(set.notes[0].rfind("NVIDIA", 0), 0U) << set.notes[0];
}

}  // namespace
}  // namespace gpuwatch
