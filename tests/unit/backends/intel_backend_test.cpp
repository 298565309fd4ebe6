// IntelBackend against the trees that the build unpacks from
// tests/fixtures/sysfs/{arc_b50_xe,i915_igpu}.ttar and
// tests/fixtures/procfs/drm_intel.ttar (arc_b50_xe.md and i915_igpu.md beside
// them, and procfs/README.md, say where the values come from). Tests that
// change a tree work on a copy.
#include "backends/intel/intel_backend.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/amdgpu/amdgpu_backend.h"
#include "core/throttle_reasons.h"
#include "tests/unit/backends/fixture_tree.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;
using DM = DeviceMetric;
using testing::has_metric;
using testing::supported_names;
using testing::write_file;

const fs::path kFixtures = fs::path(GPUWATCH_FIXTURE_TREES);
constexpr const char* kB50Device = "devices/pci0000:00/0000:00:01.0/0000:03:00.0";
constexpr const char* kIgpuDevice = "devices/pci0000:00/0000:00:02.0";

// Sets "key:\tvalue" in an fdinfo text, in place.
void set_key(const fs::path& path, const std::string& key, const std::string& value) {
  std::ifstream in(path);
  std::stringstream text;
  std::string line;
  bool found = false;
  while (std::getline(in, line)) {
    if (line.starts_with(key + ":")) {
      line = key + ":\t" + value;
      found = true;
    }
    text << line << '\n';
  }
  ASSERT_TRUE(found) << key << " in " << path;
  write_file(path, text.str());
}

// Every xe engine class's GPU timestamp (the same clock for all).
void set_xe_total_cycles(const fs::path& path, const std::string& value) {
  for (const char* e : {"rcs", "bcs", "vcs", "vecs", "ccs"}) set_key(path, std::string("drm-total-cycles-") + e, value);
}

class IntelBackendTest : public ::testing::Test {
 protected:
  std::unique_ptr<IntelBackend> open(const fs::path& root, const fs::path& procfs = "/nonexistent/proc") {
    why_not.clear();
    return IntelBackend::open(testing::fixture_paths(root, procfs), why_not);
  }
  fs::path copy_of(const std::string& tree) { return scratch_.copy_of(tree); }

  std::string why_not;

 private:
  testing::ScratchTrees scratch_{kFixtures};
};

DeviceValues slow_round(IntelBackend& backend, std::vector<GpuProcess>* processes = nullptr,
                        SlowReadPlan plan = SlowReadPlan{}) {
  DeviceValues v;
  std::vector<GpuProcess> ignored;
  EXPECT_EQ(backend.read_slow(0, plan, v, processes != nullptr ? *processes : ignored), ReadStatus::Ok);
  return v;
}

// A fast read after slow rounds: utilization and VRAM used as the last scan measured them.
DeviceValues fast_round(IntelBackend& backend) {
  DeviceValues v;
  EXPECT_EQ(backend.read_fast(0, v), ReadStatus::Ok);
  return v;
}

// ---- discovery -------------------------------------------------------------

TEST_F(IntelBackendTest, ArcB50OnXeIsFoundWithItsMaximumClock) {
  auto backend = open(kFixtures / "sysfs/arc_b50_xe");
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_EQ(backend->name(), "intel");
  const std::vector<DeviceInfo> devices = backend->devices();
  ASSERT_EQ(devices.size(), 1U);
  const DeviceInfo& d = devices[0];
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d.backend, "intel");
  EXPECT_EQ(d.vendor, "Intel");
  EXPECT_EQ(d.name, "Intel Arc Pro B50");  // the built-in table by PCI id
  EXPECT_EQ(d.pci_bus_id, "0000:03:00.0");
  EXPECT_EQ(d.static_values.get(DM::SmClockMaxMhz), 2600);  // gt0's rp0_freq
  EXPECT_EQ(supported_names(d),
            testing::with_engine_classes({"gpu_util_percent", "mem_used_bytes", "mem_total_bytes", "power_watts",
                                          "power_limit_watts", "energy_joules", "temp_gpu_celsius",
                                          "temp_mem_celsius", "sm_clock_mhz", "sm_clock_max_mhz",
                                          "clock_event_reasons"}));
  EXPECT_EQ(d.static_values.get(DM::MemTotalBytes), 16.0 * 1024 * 1024 * 1024);  // tile0/physical_vram_size_bytes
}

TEST_F(IntelBackendTest, I915IntegratedGpuHasClocksAndNoMemoryOrPower) {
  auto backend = open(kFixtures / "sysfs/i915_igpu");
  ASSERT_NE(backend, nullptr) << why_not;
  const std::vector<DeviceInfo> devices = backend->devices();
  ASSERT_EQ(devices.size(), 1U);  // not card0-eDP-1 or renderD128
  EXPECT_EQ(devices[0].name, "Intel GPU 0x46a6");  // an integrated GPU: not in the built-in table
  EXPECT_EQ(devices[0].pci_bus_id, "0000:00:02.0");
  EXPECT_EQ(devices[0].static_values.get(DM::SmClockMaxMhz), 1450);  // gt_RP0_freq_mhz
  EXPECT_EQ(supported_names(devices[0]),
            testing::with_engine_classes({"gpu_util_percent", "sm_clock_mhz", "sm_clock_max_mhz", "clock_event_reasons"}));
}

TEST_F(IntelBackendTest, OtherVendorsAreNotIntelsAndNothingIsSaid) {
  EXPECT_EQ(open(kFixtures / "sysfs/w7900"), nullptr);
  EXPECT_EQ(why_not, "");
  EXPECT_EQ(open(kFixtures / "sysfs/bmc"), nullptr);
  EXPECT_EQ(why_not, "");
  EXPECT_EQ(open(kFixtures / "sysfs/does-not-exist"), nullptr);
  EXPECT_EQ(why_not, "");
}

TEST_F(IntelBackendTest, IntelGpuOnAnotherDriverIsSkippedAndExplained) {
  const fs::path root = copy_of("sysfs/arc_b50_xe");
  const fs::path driver = root / kB50Device / "driver";
  fs::remove(driver);
  fs::create_directories(root / "bus/pci/drivers/vfio-pci");
  fs::create_symlink("../../../../bus/pci/drivers/vfio-pci", driver);
  EXPECT_EQ(open(root), nullptr);
  EXPECT_EQ(why_not, "Intel: no GPU driven by i915 or xe (0000:03:00.0 (vfio-pci))");
}

// ---- values ----------------------------------------------------------------

TEST_F(IntelBackendTest, ArcB50ValuesInCatalogueUnits) {
  auto backend = open(kFixtures / "sysfs/arc_b50_xe");
  ASSERT_NE(backend, nullptr) << why_not;
  DeviceValues fast;
  ASSERT_EQ(backend->read_fast(0, fast), ReadStatus::Ok);
  EXPECT_FALSE(fast.has(DM::PowerWatts));  // one energy reading: no power yet
  EXPECT_EQ(fast.get(DM::MemTotalBytes), 16.0 * 1024 * 1024 * 1024);
  const DeviceValues v = slow_round(*backend);
  EXPECT_EQ(v.get(DM::SmClockMhz), 2500);            // tile0/gt0/freq0/act_freq
  EXPECT_EQ(v.get(DM::PowerLimitWatts), 70);         // power1_max, the "card" channel, µW
  EXPECT_EQ(v.get(DM::EnergyJoules), 1234.56789);    // energy1_input "card", µJ
  EXPECT_EQ(v.get(DM::TempGpuCelsius), 59);          // temp2 "pkg"
  EXPECT_EQ(v.get(DM::TempMemCelsius), 52);          // temp3 "vram"
  EXPECT_FALSE(v.has(DM::TempJunctionCelsius));      // xe's hwmon has no junction sensor
  EXPECT_FALSE(v.has(DM::FanPercent));               // fan1_input in RPM, no maximum
  EXPECT_FALSE(v.has(DM::GpuUtilPercent));           // no procfs given
  EXPECT_FALSE(v.has(DM::MemUsedBytes));
  EXPECT_FALSE(slow_round(*backend, nullptr, SlowReadPlan{.costly = false}).has(DM::EnergyJoules));
}

// The fixtures' GPUs are at ease: status 0, no reason. Then a power limit
// and PROCHOT hold xe's GT down, and i915's runs into its thermal limit.
TEST_F(IntelBackendTest, ThrottleReasonsOnXeAndI915) {
  const fs::path xe = copy_of("sysfs/arc_b50_xe");
  auto backend = open(xe);
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_EQ(slow_round(*backend).get(DM::ClockEventReasons), 0);
  const fs::path throttle = xe / kB50Device / "tile0/gt0/freq0/throttle";
  write_file(throttle / "status", "1\n");
  write_file(throttle / "reason_pl1", "1\n");
  write_file(throttle / "reason_prochot", "1\n");
  EXPECT_EQ(slow_round(*backend).get(DM::ClockEventReasons),
            static_cast<double>(kThrottleSwPowerCap | kThrottleHwThermal));
  // A reason left set while status says the GT runs free is not a throttle.
  write_file(throttle / "status", "0\n");
  EXPECT_EQ(slow_round(*backend).get(DM::ClockEventReasons), 0);

  const fs::path i915 = copy_of("sysfs/i915_igpu");
  const fs::path gt0 = i915 / kIgpuDevice / "drm/card0/gt/gt0";
  write_file(gt0 / "throttle_reason_status", "1\n");
  write_file(gt0 / "throttle_reason_thermal", "1\n");
  backend = open(i915);
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_EQ(slow_round(*backend).get(DM::ClockEventReasons), static_cast<double>(kThrottleSwThermal));
  // Without the status file nothing is claimed.
  fs::remove(gt0 / "throttle_reason_status");
  backend = open(i915);
  EXPECT_FALSE(slow_round(*backend).has(DM::ClockEventReasons));
}

TEST_F(IntelBackendTest, PackageChannelWhenTheCardHasNoCardChannel) {
  const fs::path root = copy_of("sysfs/arc_b50_xe");
  const fs::path hwmon = root / kB50Device / "hwmon/hwmon2";
  for (const char* f : {"energy1_label", "energy1_input", "power1_label", "power1_max"}) fs::remove(hwmon / f);
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  const DeviceValues v = slow_round(*backend);
  EXPECT_EQ(v.get(DM::EnergyJoules), 987.654321);  // energy2 "pkg"
  EXPECT_EQ(v.get(DM::PowerLimitWatts), 60);       // power2_max
}

TEST_F(IntelBackendTest, FanPercentOnlyAgainstAMaximum) {
  const fs::path root = copy_of("sysfs/arc_b50_xe");
  write_file(root / kB50Device / "hwmon/hwmon2/fan1_max", "4000\n");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_TRUE(has_metric(backend->devices()[0], DM::FanPercent));
  EXPECT_DOUBLE_EQ(*slow_round(*backend).get(DM::FanPercent), 2119 * 100.0 / 4000);
}

TEST_F(IntelBackendTest, PowerFromTwoEnergyReadingsAndNoneWhenTheCounterStepsBack) {
  const fs::path root = copy_of("sysfs/arc_b50_xe");
  const fs::path energy = root / kB50Device / "hwmon/hwmon2/energy1_input";
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  const auto start = std::chrono::steady_clock::now();
  DeviceValues first;
  ASSERT_EQ(backend->read_fast(0, first), ReadStatus::Ok);
  EXPECT_FALSE(first.has(DM::PowerWatts));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  write_file(energy, "1236567890\n");  // 2 J more
  DeviceValues second;
  ASSERT_EQ(backend->read_fast(0, second), ReadStatus::Ok);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(second.has(DM::PowerWatts));
  // 2 J over the backend's own interval, which lies between 50 ms and the
  // test's whole span: bounds, not a timed equality.
  EXPECT_GE(*second.get(DM::PowerWatts), 2 / elapsed);
  EXPECT_LE(*second.get(DM::PowerWatts), 2 / 0.05);

  write_file(energy, "5000\n");  // stepped back (driver reloaded)
  DeviceValues back;
  ASSERT_EQ(backend->read_fast(0, back), ReadStatus::Ok);
  EXPECT_FALSE(back.has(DM::PowerWatts));
  write_file(energy, "1005000\n");
  DeviceValues again;
  ASSERT_EQ(backend->read_fast(0, again), ReadStatus::Ok);
  ASSERT_TRUE(again.has(DM::PowerWatts));  // measured from the stepped-back value
  EXPECT_GT(*again.get(DM::PowerWatts), 0);
}

TEST_F(IntelBackendTest, I915ClockIsTheActualOneElseTheRequestedOne) {
  const fs::path root = copy_of("sysfs/i915_igpu");
  {
    auto backend = open(root);
    ASSERT_NE(backend, nullptr) << why_not;
    const DeviceValues v = slow_round(*backend);
    EXPECT_EQ(v.get(DM::SmClockMhz), 1253);  // gt_act_freq_mhz
    EXPECT_FALSE(v.has(DM::PowerWatts));
    EXPECT_FALSE(v.has(DM::TempGpuCelsius));
  }
  fs::remove(root / kIgpuDevice / "drm/card0/gt_act_freq_mhz");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_EQ(slow_round(*backend).get(DM::SmClockMhz), 1449);  // gt_cur_freq_mhz
}

TEST_F(IntelBackendTest, I915HwmonOfTheDeviceNotOfAGt) {
  const fs::path root = copy_of("sysfs/i915_igpu");
  const fs::path device = root / kIgpuDevice;
  fs::create_directories(device / "hwmon/hwmon4");
  write_file(device / "hwmon/hwmon4/name", "i915_gt0\n");
  write_file(device / "hwmon/hwmon4/energy1_input", "1\n");
  fs::create_directories(device / "hwmon/hwmon3");
  write_file(device / "hwmon/hwmon3/name", "i915\n");
  write_file(device / "hwmon/hwmon3/energy1_input", "3230000\n");
  write_file(device / "hwmon/hwmon3/power1_max", "15000000\n");
  write_file(device / "hwmon/hwmon3/temp1_input", "47000\n");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  const DeviceValues v = slow_round(*backend);
  EXPECT_EQ(v.get(DM::EnergyJoules), 3.23);
  EXPECT_EQ(v.get(DM::PowerLimitWatts), 15);
  EXPECT_EQ(v.get(DM::TempGpuCelsius), 47);  // temp1, unlabelled
}

TEST_F(IntelBackendTest, XeMaximumFromMaxFreqWithoutRp0AndUnparsableFilesAbsent) {
  const fs::path root = copy_of("sysfs/arc_b50_xe");
  fs::remove(root / kB50Device / "tile0/gt0/freq0/rp0_freq");
  write_file(root / kB50Device / "hwmon/hwmon2/temp3_input", "n/a\n");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  const DeviceInfo d = backend->devices()[0];
  EXPECT_EQ(d.static_values.get(DM::SmClockMaxMhz), 2600);  // max_freq
  EXPECT_FALSE(has_metric(d, DM::TempMemCelsius));
  const DeviceValues v = slow_round(*backend);
  EXPECT_FALSE(v.has(DM::TempMemCelsius));
  EXPECT_EQ(v.get(DM::TempGpuCelsius), 59);
}

TEST_F(IntelBackendTest, GarbageInEveryFileLeavesValuesAbsent) {
  const fs::path root = copy_of("sysfs/arc_b50_xe");
  for (const auto& entry : fs::recursive_directory_iterator(root / kB50Device)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_symlink() || !entry.is_regular_file() || name == "vendor" || name == "name") continue;
    write_file(entry.path(), "\xff -99999999999999999999999 MHz\n");
  }
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_EQ(supported_names(backend->devices()[0]),
            testing::with_engine_classes({"gpu_util_percent", "mem_used_bytes"}));  // fdinfo's, not these files'
  EXPECT_TRUE(fast_round(*backend).empty());
  EXPECT_TRUE(slow_round(*backend).empty());
}

// ---- fdinfo: utilization, memory, processes --------------------------------

TEST_F(IntelBackendTest, XeUtilizationFromTwoScansMemoryAndProcesses) {
  const fs::path procfs = copy_of("procfs/drm_intel");
  auto backend = open(kFixtures / "sysfs/arc_b50_xe", procfs);
  ASSERT_NE(backend, nullptr) << why_not;
  std::vector<GpuProcess> processes;
  EXPECT_FALSE(slow_round(*backend, &processes).has(DM::MemUsedBytes));  // scan results go out with fast reads
  DeviceValues v = fast_round(*backend);
  EXPECT_FALSE(v.has(DM::GpuUtilPercent));  // one scan: no rate yet
  // Both xe clients' vram0: 23992 KiB + 705932 KiB.
  EXPECT_EQ(v.get(DM::MemUsedBytes), (23992.0 + 705932.0) * 1024);
  ASSERT_EQ(processes.size(), 2U);  // not ffmpeg's i915 client on 0000:00:02.0
  EXPECT_EQ(processes[0].pid, 4002U);
  EXPECT_EQ(processes[0].name, "clpeak");
  EXPECT_EQ(processes[0].kind, "graphics");
  EXPECT_EQ(processes[0].used_memory_bytes, 23992U * 1024);
  EXPECT_FALSE(processes[0].gpu_percent);
  EXPECT_EQ(processes[1].pid, 4003U);
  EXPECT_EQ(processes[1].name, "python3");
  EXPECT_EQ(processes[1].kind, "compute");
  EXPECT_EQ(processes[1].used_memory_bytes, 705932U * 1024);

  // 1e9 GPU ticks later: clpeak's rcs busy 0.3e9, python3's rcs 0.6e9 and
  // its four ccs engines 2e9 (50 % of the class).
  const fs::path a = procfs / "4002/fdinfo/4";
  const fs::path b = procfs / "4003/fdinfo/5";
  set_xe_total_cycles(a, "8655183225");
  set_xe_total_cycles(b, "8655183225");
  set_key(a, "drm-cycles-rcs", std::to_string(28257900 + 300000000));
  set_key(b, "drm-cycles-rcs", "600000000");
  set_key(b, "drm-cycles-ccs", "22000000000");
  processes.clear();
  const DeviceValues slow = slow_round(*backend, &processes);
  v = fast_round(*backend);
  ASSERT_TRUE(v.has(DM::GpuUtilPercent));
  EXPECT_NEAR(*v.get(DM::GpuUtilPercent), 90, 1e-9);
  // The same scan per engine class, with the slow round: rcs 90 %, ccs
  // 50 %, and the classes whose counters did not move at 0.
  ASSERT_TRUE(slow.has(DM::EngineGraphicsPercent) && slow.has(DM::EngineComputePercent));
  EXPECT_NEAR(*slow.get(DM::EngineGraphicsPercent), 90, 1e-9);
  EXPECT_NEAR(*slow.get(DM::EngineComputePercent), 50, 1e-9);
  EXPECT_EQ(slow.get(DM::EngineCopyPercent), 0);
  EXPECT_EQ(slow.get(DM::EngineVideoPercent), 0);
  EXPECT_EQ(slow.get(DM::EngineVideoEnhancePercent), 0);
  EXPECT_EQ(fast_round(*backend).get(DM::GpuUtilPercent), v.get(DM::GpuUtilPercent));  // until the next scan  // rcs: 30 + 60, busier than ccs' 50
  ASSERT_EQ(processes.size(), 2U);
  ASSERT_TRUE(processes[0].gpu_percent && processes[1].gpu_percent);
  EXPECT_NEAR(*processes[0].gpu_percent, 30, 1e-9);
  EXPECT_NEAR(*processes[1].gpu_percent, 60, 1e-9);

  // Another 1e9: rcs 0.5e9 + 0.7e9 is capped at the class's 100 %.
  set_xe_total_cycles(a, "9655183225");
  set_xe_total_cycles(b, "9655183225");
  set_key(a, "drm-cycles-rcs", std::to_string(28257900 + 800000000));
  set_key(b, "drm-cycles-rcs", "1300000000");
  EXPECT_EQ(slow_round(*backend).get(DM::EngineGraphicsPercent), 100);
  EXPECT_EQ(fast_round(*backend).get(DM::GpuUtilPercent), 100);

  // Every client gone: nothing measured, nothing sent.
  fs::remove_all(procfs / "4002");
  fs::remove_all(procfs / "4003");
  EXPECT_FALSE(slow_round(*backend).has(DM::EngineGraphicsPercent));
  v = fast_round(*backend);
  EXPECT_FALSE(v.has(DM::GpuUtilPercent));
  EXPECT_FALSE(v.has(DM::MemUsedBytes));
}

TEST_F(IntelBackendTest, I915UtilizationFromBusyTimeAndNoMemoryOnAnIgpu) {
  const fs::path procfs = copy_of("procfs/drm_intel");
  auto backend = open(kFixtures / "sysfs/i915_igpu", procfs);
  ASSERT_NE(backend, nullptr) << why_not;
  std::vector<GpuProcess> processes;
  slow_round(*backend, &processes);
  DeviceValues v = fast_round(*backend);
  EXPECT_FALSE(v.has(DM::GpuUtilPercent));
  EXPECT_FALSE(v.has(DM::MemUsedBytes));  // an iGPU's buffers are host memory
  ASSERT_EQ(processes.size(), 1U);
  EXPECT_EQ(processes[0].pid, 4001U);
  EXPECT_EQ(processes[0].name, "ffmpeg");
  EXPECT_FALSE(processes[0].used_memory_bytes);

  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  set_key(procfs / "4001/fdinfo/3", "drm-engine-render", "9298864723 ns");  // 10 ms busier
  processes.clear();
  slow_round(*backend, &processes);
  v = fast_round(*backend);
  ASSERT_TRUE(v.has(DM::GpuUtilPercent));
  // 10 ms over a wall interval the test does not control: above 0, at most 100.
  EXPECT_GT(*v.get(DM::GpuUtilPercent), 0);
  EXPECT_LE(*v.get(DM::GpuUtilPercent), 100);
  ASSERT_EQ(processes.size(), 1U);
  EXPECT_EQ(processes[0].gpu_percent, v.get(DM::GpuUtilPercent));
}

// ---- suspend and loss ------------------------------------------------------

TEST_F(IntelBackendTest, SuspendedGpuIsNotReadUntilItWakes) {
  const fs::path root = copy_of("sysfs/arc_b50_xe");
  const fs::path status = root / kB50Device / "power/runtime_status";
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  write_file(status, "suspended\n");
  DeviceValues v;
  ASSERT_EQ(backend->read_fast(0, v), ReadStatus::Ok);
  EXPECT_TRUE(slow_round(*backend).empty());
  write_file(status, "active\n");
  EXPECT_EQ(slow_round(*backend).get(DM::SmClockMhz), 2500);
}

TEST_F(IntelBackendTest, RemovedGpuIsLost) {
  const fs::path root = copy_of("sysfs/arc_b50_xe");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  DeviceValues v;
  ASSERT_EQ(backend->read_fast(0, v), ReadStatus::Ok);
  fs::remove_all(root / kB50Device);
  std::vector<GpuProcess> processes;
  DeviceValues after;
  EXPECT_EQ(backend->read_fast(0, after), ReadStatus::Lost);
  EXPECT_EQ(backend->read_slow(0, SlowReadPlan{}, after, processes), ReadStatus::Lost);
  EXPECT_TRUE(after.empty());
  EXPECT_EQ(backend->read_fast(1, after), ReadStatus::Lost);  // no such device
}

TEST_F(IntelBackendTest, IgpuWithoutRuntimeStatusIsLostOnItsSlowRound) {
  const fs::path root = copy_of("sysfs/i915_igpu");
  fs::remove_all(root / kIgpuDevice / "power");
  auto backend = open(root);
  ASSERT_NE(backend, nullptr) << why_not;
  fs::remove_all(root / kIgpuDevice);
  DeviceValues v;
  std::vector<GpuProcess> processes;
  EXPECT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Lost);
}

TEST_F(IntelBackendTest, FastAndSlowReadsMayOverlap) {
  const fs::path procfs = copy_of("procfs/drm_intel");
  auto backend = open(kFixtures / "sysfs/arc_b50_xe", procfs);
  ASSERT_NE(backend, nullptr) << why_not;
  std::atomic<bool> stop{false};
  std::atomic<int> slow_reads{0};
  std::thread slow([&] {
    while (!stop) {
      std::vector<GpuProcess> processes;
      if (slow_round(*backend, &processes).get(DM::SmClockMhz) == 2500 && processes.size() == 2) ++slow_reads;
    }
  });
  int fast_reads = 0;
  for (int i = 0; i < 2000; ++i) {
    DeviceValues v;
    if (backend->read_fast(0, v) == ReadStatus::Ok) ++fast_reads;
  }
  stop = true;
  slow.join();
  EXPECT_EQ(fast_reads, 2000);
  EXPECT_GT(slow_reads.load(), 0);
  EXPECT_EQ(fast_round(*backend).get(DM::MemUsedBytes), (23992.0 + 705932.0) * 1024);
}

// ---- registry --------------------------------------------------------------

TEST(IntelRegistry, IntelGpusAreRegisteredAfterTheOthers) {
  SystemPaths paths;
  paths.sysfs_root = kFixtures / "sysfs/arc_b50_xe";
  paths.procfs_root = "/nonexistent/proc";
  paths.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  const BackendSet set = open_backends(paths);
  ASSERT_EQ(set.backends.size(), 1U);
  EXPECT_EQ(set.backends[0].backend->name(), "intel");
  ASSERT_EQ(set.devices.size(), 1U);
  EXPECT_EQ(set.devices[0].index, 0);
  EXPECT_EQ(set.devices[0].vendor, "Intel");
  ASSERT_EQ(set.notes.size(), 1U);  // NVIDIA's reason only
  EXPECT_EQ(set.notes[0].rfind("NVIDIA", 0), 0U) << set.notes[0];
}

// A machine with an AMD and an Intel GPU scans /proc once per slow round,
// not once per backend: the registry hands both the same scanner.
TEST(IntelRegistry, AmdAndIntelCardsShareOneProcScanPerRound) {
  const auto scans = std::make_shared<DrmScanPerRound>(kFixtures / "procfs/drm_intel");
  std::string why_not;
  const auto intel = IntelBackend::open(testing::fixture_paths(kFixtures / "sysfs/arc_b50_xe", kFixtures / "procfs/drm_intel"),
                                        why_not, scans);
  const auto amd = AmdgpuBackend::open(testing::fixture_paths(kFixtures / "sysfs/mi300x", kFixtures / "procfs/drm_intel"),
                                       why_not, scans);
  ASSERT_TRUE(intel && amd) << why_not;
  for (int round = 1; round <= 3; ++round) {
    DeviceValues v;
    std::vector<GpuProcess> processes;
    ASSERT_EQ(intel->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
    ASSERT_EQ(amd->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
    EXPECT_EQ(scans->scans(), static_cast<std::uint64_t>(round));
  }
}

}  // namespace
}  // namespace gpuwatch
