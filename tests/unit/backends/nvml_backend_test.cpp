// NvmlBackend against the fake NVML driver (tests/fake_nvml). The fake reads
// its scenario at nvmlInit, so each test sets FAKE_NVML_SET before opening.
#include "backends/nvml/nvml_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>

#include "core/bytes.h"

namespace gpuwatch {
namespace {

using DM = DeviceMetric;
using namespace std::chrono_literals;

// Slow calls are instant unless a test asks otherwise.
constexpr const char* kFast = "pcie_delay_ms=0;energy_delay_ms=0;";

class NvmlBackendTest : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv("FAKE_NVML_SET");
    unsetenv("FAKE_NVML_SCENARIO");
  }

  std::unique_ptr<GpuBackend> open(const std::string& scenario, const char* library = FAKE_NVML_PATH) {
    setenv("FAKE_NVML_SET", (kFast + scenario).c_str(), 1);
    SystemPaths paths;
    paths.nvml_library = library;
    why_not.clear();
    return open_nvml_backend(paths, why_not);
  }

  std::string why_not;
};

bool has_metric(const DeviceInfo& info, DM m) {
  return std::find(info.supported.begin(), info.supported.end(), m) != info.supported.end();
}

// Every metric NVML gives (the catalogue also has metrics other modules fill).
constexpr DM kNvmlMetrics[] = {
    DM::GpuUtilPercent,   DM::MemUtilPercent,    DM::MemUsedBytes,      DM::MemTotalBytes,
    DM::MemReservedBytes, DM::PowerWatts,        DM::PowerLimitWatts,   DM::EnergyJoules,
    DM::TempGpuCelsius,   DM::TempMemCelsius,    DM::SmClockMhz,        DM::MemClockMhz,
    DM::SmClockMaxMhz,    DM::MemClockMaxMhz,    DM::FanPercent,        DM::PerfState,
    DM::ClockEventReasons, DM::PcieLinkGen,      DM::PcieLinkWidth,     DM::PcieLinkGenMax,
    DM::PcieLinkWidthMax, DM::PcieTxBytesPerSec, DM::PcieRxBytesPerSec,
};

TEST_F(NvmlBackendTest, DiscoversDevicesAndStaticFacts) {
  auto backend = open("gpu_count=3;gpu1.name=NVIDIA H200;gpu1.memory_total_mib=143771;"
                      "driver_version=570.86.15");
  ASSERT_NE(backend, nullptr) << why_not;
  EXPECT_EQ(backend->name(), "nvml");
  const std::vector<DeviceInfo> devices = backend->devices();
  ASSERT_EQ(devices.size(), 3U);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].index, static_cast<int>(i));
    EXPECT_EQ(devices[i].vendor, "NVIDIA");
    EXPECT_EQ(devices[i].backend, "nvml");
    EXPECT_EQ(devices[i].driver_version, "570.86.15");
    // The full fake answers every call the backend makes.
    for (DM m : kNvmlMetrics) EXPECT_TRUE(has_metric(devices[i], m)) << info(m).name;
    EXPECT_EQ(devices[i].supported.size(), std::size(kNvmlMetrics));
  }
  const DeviceInfo& d0 = devices[0];
  EXPECT_EQ(d0.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d0.uuid, "GPU-fa4e0000-0000-4000-8000-000000000000");
  EXPECT_EQ(d0.pci_bus_id, "0000:18:00.0");  // NVML's 8-digit domain, normalised
  EXPECT_EQ(devices[1].pci_bus_id, "0000:20:00.0");
  EXPECT_EQ(devices[1].name, "NVIDIA H200");
  EXPECT_EQ(d0.static_values.get(DM::MemTotalBytes), 81559 * kMiB);
  EXPECT_EQ(devices[1].static_values.get(DM::MemTotalBytes), 143771 * kMiB);
  EXPECT_EQ(d0.static_values.get(DM::SmClockMaxMhz), 1980);
  EXPECT_EQ(d0.static_values.get(DM::MemClockMaxMhz), 2619);
  EXPECT_EQ(d0.static_values.get(DM::PcieLinkGenMax), 5);
  EXPECT_EQ(d0.static_values.get(DM::PcieLinkWidthMax), 16);
}

TEST_F(NvmlBackendTest, ReadsValuesInCatalogueUnits) {
  auto backend = open(
      "gpu0.util=50;gpu0.mem_util=30;gpu0.mem_used_mib=1024;gpu0.memory_reserved_mib=512;"
      "gpu0.temp_c=61;gpu0.mem_temp_c=70;gpu0.sm_clock_mhz=1755;gpu0.mem_clock_mhz=2619;"
      "gpu0.fan_percent=40;gpu0.pstate=2;gpu0.clock_reasons=0x4;gpu0.pcie_gen=4;"
      "gpu0.pcie_width=8;gpu0.pcie_tx_kbs=1500;gpu0.pcie_rx_kbs=2500;gpu0.power_limit_w=650");
  ASSERT_NE(backend, nullptr) << why_not;

  DeviceValues v;
  ASSERT_EQ(backend->read_fast(0, v), ReadStatus::Ok);
  EXPECT_EQ(v.get(DM::GpuUtilPercent), 50);
  EXPECT_EQ(v.get(DM::MemUtilPercent), 30);
  EXPECT_EQ(v.get(DM::MemUsedBytes), 1024 * kMiB);  // v2: reservation not counted as used
  EXPECT_EQ(v.get(DM::MemReservedBytes), 512 * kMiB);
  EXPECT_EQ(v.get(DM::MemTotalBytes), 81559 * kMiB);
  EXPECT_DOUBLE_EQ(*v.get(DM::PowerWatts), 120 + 5.8 * 50);  // mW -> W
  // Each read fills exactly the metrics the catalogue gives its cadence.
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (v.has(static_cast<DM>(m))) {
      EXPECT_EQ(kDeviceMetrics[m].cadence, Cadence::Fast) << kDeviceMetrics[m].name;
    }
  }

  DeviceValues slow;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, slow, processes), ReadStatus::Ok);
  EXPECT_EQ(slow.get(DM::PowerLimitWatts), 650);
  EXPECT_EQ(slow.get(DM::TempGpuCelsius), 61);
  EXPECT_EQ(slow.get(DM::SmClockMhz), 1755);
  EXPECT_EQ(slow.get(DM::ClockEventReasons), 4);
  EXPECT_EQ(slow.get(DM::TempMemCelsius), 70);
  EXPECT_EQ(slow.get(DM::MemClockMhz), 2619);
  EXPECT_EQ(slow.get(DM::FanPercent), 40);
  EXPECT_EQ(slow.get(DM::PerfState), 2);
  EXPECT_EQ(slow.get(DM::PcieLinkGen), 4);
  EXPECT_EQ(slow.get(DM::PcieLinkWidth), 8);
  EXPECT_EQ(slow.get(DM::PcieTxBytesPerSec), 1500 * 1024.0);  // KiB/s -> B/s
  EXPECT_EQ(slow.get(DM::PcieRxBytesPerSec), 2500 * 1024.0);
  EXPECT_GE(*slow.get(DM::EnergyJoules), 100000.0);  // fake counter starts at 100 kJ
  EXPECT_TRUE(processes.empty());
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (slow.has(static_cast<DM>(m))) {
      EXPECT_TRUE(kDeviceMetrics[m].cadence == Cadence::Slow || kDeviceMetrics[m].cadence == Cadence::Costly)
          << kDeviceMetrics[m].name;
    }
  }

  // Without the costly calls: everything slow but energy and PCIe throughput.
  DeviceValues cheap;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{.costly = false}, cheap, processes), ReadStatus::Ok);
  EXPECT_EQ(cheap.get(DM::PowerLimitWatts), 650);
  EXPECT_FALSE(cheap.has(DM::EnergyJoules));
  EXPECT_FALSE(cheap.has(DM::PcieTxBytesPerSec));
}

TEST_F(NvmlBackendTest, EnergyCounterIntegratesPower) {
  auto backend = open("gpu0.util=50");
  ASSERT_NE(backend, nullptr) << why_not;
  std::vector<GpuProcess> processes;
  DeviceValues a;
  DeviceValues b;
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, a, processes), ReadStatus::Ok);
  std::this_thread::sleep_for(300ms);
  const auto t1 = std::chrono::steady_clock::now();
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, b, processes), ReadStatus::Ok);
  const double seconds = std::chrono::duration<double>(t1 - t0).count();
  const double watts = (*b.get(DM::EnergyJoules) - *a.get(DM::EnergyJoules)) / seconds;
  EXPECT_NEAR(watts, 410.0, 41.0);  // mJ -> J; loose: scheduling noise on a busy machine
}

TEST_F(NvmlBackendTest, UtilizationFollowsItsPattern) {
  auto backend = open("gpu0.util=busy:0.2,idle:0.2");
  ASSERT_NE(backend, nullptr) << why_not;
  std::set<double> seen;
  for (int i = 0; i < 50 && seen.size() < 2; ++i) {
    DeviceValues v;
    ASSERT_EQ(backend->read_fast(0, v), ReadStatus::Ok);
    seen.insert(*v.get(DM::GpuUtilPercent));
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(seen, (std::set<double>{0.0, 100.0}));
}

TEST_F(NvmlBackendTest, UnsupportedMetricsAreAbsent) {
  auto backend = open("gpu0.unsupported=fan,mem_temp,energy,pcie_throughput,graphics_processes");
  ASSERT_NE(backend, nullptr) << why_not;
  const std::vector<DeviceInfo> devices = backend->devices();
  for (DM m : {DM::FanPercent, DM::TempMemCelsius, DM::EnergyJoules, DM::PcieTxBytesPerSec,
               DM::PcieRxBytesPerSec}) {
    EXPECT_FALSE(has_metric(devices[0], m)) << info(m).name;
    EXPECT_TRUE(has_metric(devices[1], m)) << info(m).name;
  }
  EXPECT_TRUE(has_metric(devices[0], DM::GpuUtilPercent));

  DeviceValues fast;
  DeviceValues slow;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_fast(0, fast), ReadStatus::Ok);
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, slow, processes), ReadStatus::Ok);
  EXPECT_FALSE(slow.has(DM::FanPercent));
  EXPECT_FALSE(slow.has(DM::TempMemCelsius));
  EXPECT_TRUE(slow.has(DM::TempGpuCelsius));
  EXPECT_FALSE(slow.has(DM::EnergyJoules));
  EXPECT_FALSE(slow.has(DM::PcieTxBytesPerSec));
}

TEST_F(NvmlBackendTest, LostGpuReportsLostWhileOthersContinue) {
  auto backend = open("gpu1.lost_after_s=0.5");
  ASSERT_NE(backend, nullptr) << why_not;
  ASSERT_EQ(backend->devices().size(), 2U);
  DeviceValues v;
  EXPECT_EQ(backend->read_fast(1, v), ReadStatus::Ok);
  std::this_thread::sleep_for(600ms);
  DeviceValues after;
  std::vector<GpuProcess> processes;
  EXPECT_EQ(backend->read_fast(1, after), ReadStatus::Lost);
  EXPECT_EQ(backend->read_slow(1, SlowReadPlan{}, after, processes), ReadStatus::Lost);
  DeviceValues other;
  EXPECT_EQ(backend->read_fast(0, other), ReadStatus::Ok);
  EXPECT_TRUE(other.has(DM::GpuUtilPercent));
  EXPECT_EQ(backend->read_slow(0, SlowReadPlan{}, other, processes), ReadStatus::Ok);
}

TEST_F(NvmlBackendTest, GpuLostBeforeOpenIsListedAndLost) {
  auto backend = open("gpu0.lost_after_s=0");
  ASSERT_NE(backend, nullptr) << why_not;
  ASSERT_EQ(backend->devices().size(), 2U);
  DeviceValues v;
  EXPECT_EQ(backend->read_fast(0, v), ReadStatus::Lost);
  EXPECT_EQ(backend->read_fast(1, v), ReadStatus::Ok);
}

TEST_F(NvmlBackendTest, DriverNotLoadedGivesReason) {
  auto backend = open("init_error=9");
  EXPECT_EQ(backend, nullptr);
  EXPECT_NE(why_not.find("driver not loaded"), std::string::npos) << why_not;
}

TEST_F(NvmlBackendTest, MissingLibraryGivesReason) {
  auto backend = open("", "/nonexistent/libnvidia-ml.so.1");
  EXPECT_EQ(backend, nullptr);
  EXPECT_EQ(why_not.rfind("NVIDIA", 0), 0U) << why_not;
  EXPECT_EQ(why_not.find('\n'), std::string::npos);
}

TEST_F(NvmlBackendTest, NoGpusGivesReason) {
  auto backend = open("gpu_count=0");
  EXPECT_EQ(backend, nullptr);
  EXPECT_NE(why_not.find("no GPUs"), std::string::npos) << why_not;
}

TEST_F(NvmlBackendTest, ScenarioTypoFailsInit) {
  auto backend = open("gpu0.utilisation=50");
  EXPECT_EQ(backend, nullptr);
  EXPECT_NE(why_not.find("nvmlInit failed"), std::string::npos) << why_not;
}

TEST_F(NvmlBackendTest, OldDriverFallsBackToPlainSymbols) {
  auto backend = open("gpu0.processes=1234:1073741824,5678:na;gpu0.clock_reasons=0x1;"
                      "gpu0.mem_used_mib=100;gpu0.memory_reserved_mib=512",
                      FAKE_NVML_OLD_PATH);
  ASSERT_NE(backend, nullptr) << why_not;
  const DeviceInfo d0 = backend->devices().at(0);
  EXPECT_EQ(d0.pci_bus_id, "0000:18:00.0");  // from the v1 struct's leading bus id
  EXPECT_FALSE(has_metric(d0, DM::EnergyJoules));
  EXPECT_FALSE(has_metric(d0, DM::TempMemCelsius));
  EXPECT_FALSE(has_metric(d0, DM::MemReservedBytes));
  EXPECT_TRUE(has_metric(d0, DM::ClockEventReasons));

  DeviceValues v;
  ASSERT_EQ(backend->read_fast(0, v), ReadStatus::Ok);
  EXPECT_EQ(v.get(DM::MemUsedBytes), (100 + 512) * kMiB);  // v1 counts the reservation
  EXPECT_FALSE(v.has(DM::MemReservedBytes));

  DeviceValues slow;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, slow, processes), ReadStatus::Ok);
  EXPECT_EQ(slow.get(DM::ClockEventReasons), 1);  // through the old "throttle" name
  EXPECT_FALSE(slow.has(DM::EnergyJoules));
  ASSERT_EQ(processes.size(), 2U);  // 16-byte v1 elements read as such
  EXPECT_EQ(processes[0].pid, 1234U);
  EXPECT_EQ(processes[0].used_memory_bytes, 1073741824ULL);
  EXPECT_EQ(processes[0].kind, "compute");
  EXPECT_EQ(processes[1].pid, 5678U);
  EXPECT_FALSE(processes[1].used_memory_bytes.has_value());
}

TEST_F(NvmlBackendTest, ASlowReadWithoutProcessesListsNoneButReadsTheMetrics) {
  auto backend = open("gpu0.processes=1234:1073741824;gpu0.clock_reasons=0x4");
  ASSERT_NE(backend, nullptr) << why_not;
  DeviceValues v;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{.processes = false}, v, processes), ReadStatus::Ok);
  EXPECT_TRUE(processes.empty());
  EXPECT_EQ(v.get(DM::ClockEventReasons), 4);
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  EXPECT_EQ(processes.size(), 1U);
}

TEST_F(NvmlBackendTest, ProcessesAreMergedPerDevice) {
  auto backend = open("gpu1.processes=1234:1073741824,42:na;gpu1.graphics_processes=1234:na,"
                      "4321:2048;gpu1.mps_processes=42:4096,777:8192");
  ASSERT_NE(backend, nullptr) << why_not;
  DeviceValues v;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(1, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  ASSERT_EQ(processes.size(), 4U);
  EXPECT_EQ(processes[0].pid, 1234U);
  EXPECT_EQ(processes[0].kind, "compute");
  EXPECT_EQ(processes[0].used_memory_bytes, 1073741824ULL);
  EXPECT_EQ(processes[1].pid, 42U);
  EXPECT_EQ(processes[1].used_memory_bytes, 4096ULL);  // known figure from the MPS list
  EXPECT_EQ(processes[2].pid, 4321U);
  EXPECT_EQ(processes[2].kind, "graphics");
  EXPECT_EQ(processes[3].pid, 777U);
  EXPECT_EQ(processes[3].kind, "mps");
  for (const GpuProcess& p : processes) EXPECT_EQ(p.device_index, 1);
}

TEST_F(NvmlBackendTest, ProcessGpuUseIsTheDriversSharePerPidAndZeroForAListedProcessWithoutSamples) {
  auto backend = open("gpu0.processes=1234:1073741824,42:2048;gpu0.process_util=1234:37,999:50");
  ASSERT_NE(backend, nullptr) << why_not;
  for (int read = 0; read < 2; ++read) {  // the same at every read: the last second of samples
    DeviceValues v;
    std::vector<GpuProcess> processes;
    ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
    ASSERT_EQ(processes.size(), 2U);
    EXPECT_EQ(processes[0].gpu_percent, 37.0) << read;
    EXPECT_EQ(processes[1].gpu_percent, 0.0) << read;  // listed, but the driver sampled no use
  }
  backend.reset();  // the fake reads its scenario when the last user is gone
  DeviceValues v;
  std::vector<GpuProcess> processes;
  // No process used the GPU: the driver's "not found" is an answer, not a failure.
  backend = open("gpu0.processes=1234:1073741824");
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  EXPECT_EQ(processes.at(0).gpu_percent, 0.0);
  backend.reset();
  backend = open("gpu0.processes=1234:1073741824;gpu0.unsupported=process_util");
  processes.clear();
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  EXPECT_FALSE(processes.at(0).gpu_percent.has_value());
}

TEST_F(NvmlBackendTest, ProcessListOutgrowingTheFirstCountIsRetried) {
  // Forty processes start between every two calls: more than the headroom.
  auto backend = open("gpu0.processes=1234:1073741824;gpu0.process_growth=40;"
                      "gpu0.process_growth_max=800");
  ASSERT_NE(backend, nullptr) << why_not;
  DeviceValues v;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  EXPECT_GT(processes.size(), 100U);
  std::set<std::uint32_t> pids;
  for (const GpuProcess& p : processes) pids.insert(p.pid);
  EXPECT_EQ(pids.size(), processes.size());
  EXPECT_EQ(pids.count(1234U), 1U);
}

TEST_F(NvmlBackendTest, CallingProcessCanBeListed) {
  auto backend = open("gpu0.add_processes=self,parent");
  ASSERT_NE(backend, nullptr) << why_not;
  DeviceValues v;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  ASSERT_EQ(processes.size(), 2U);
  EXPECT_EQ(processes[0].pid, static_cast<std::uint32_t>(getpid()));
  EXPECT_EQ(processes[1].pid, static_cast<std::uint32_t>(getppid()));
}

TEST_F(NvmlBackendTest, ScenarioFileIsRead) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("fake_nvml_" + std::to_string(getpid()) + ".conf");
  {
    std::ofstream out(file);
    out << "# one hot GPU\n"
        << "gpu_count = 1\n"
        << "gpu*.temp_c = 83\n";
  }
  setenv("FAKE_NVML_SCENARIO", file.c_str(), 1);
  auto backend = open("");
  std::filesystem::remove(file);
  ASSERT_NE(backend, nullptr) << why_not;
  ASSERT_EQ(backend->devices().size(), 1U);
  DeviceValues v;
  std::vector<GpuProcess> processes;
  ASSERT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Ok);
  EXPECT_EQ(v.get(DM::TempGpuCelsius), 83);
}

TEST_F(NvmlBackendTest, FastAndSlowReadsMayOverlap) {
  auto backend = open("pcie_delay_ms=1;energy_delay_ms=1;gpu0.util=busy:0.05,idle:0.05;"
                      "gpu0.processes=1:1");
  ASSERT_NE(backend, nullptr) << why_not;
  std::atomic<bool> stop{false};
  std::atomic<int> slow_reads{0};
  std::thread slow([&] {
    while (!stop) {
      DeviceValues v;
      std::vector<GpuProcess> processes;
      if (backend->read_slow(0, SlowReadPlan{}, v, processes) == ReadStatus::Ok && processes.size() == 1) ++slow_reads;
    }
  });
  int fast_reads = 0;
  for (auto end = std::chrono::steady_clock::now() + 200ms; std::chrono::steady_clock::now() < end;) {
    DeviceValues v;
    if (backend->read_fast(0, v) == ReadStatus::Ok && v.has(DM::PowerWatts)) ++fast_reads;
  }
  stop = true;
  slow.join();
  EXPECT_GT(fast_reads, 10);
  EXPECT_GT(slow_reads.load(), 1);
}

}  // namespace
}  // namespace gpuwatch
