// GPM metrics of NvmlBackend against the fake NVML driver. The backend's GPM
// clock is the test's own, so a window of a second needs no second of
// waiting and no assertion depends on timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "backends/nvml/nvml_backend.h"
#include "backends/nvml/nvml_library.h"

namespace gpuwatch {
namespace {

using DM = DeviceMetric;

constexpr std::int64_t kMs = 1'000'000;
constexpr const char* kFast = "pcie_delay_ms=0;energy_delay_ms=0;";
constexpr const char* kBusyGpu0 =
    "gpm=1;gpu0.sm_active=42;gpu0.sm_occupancy=30.5;gpu0.tensor_active=55;gpu0.dram_bw_util=60;"
    "gpu0.fp64_active=1;gpu0.fp32_active=2;gpu0.fp16_active=3;gpu0.nvlink_tx_mibs=1000;"
    "gpu0.nvlink_rx_mibs=2000;";

class NvmlGpmTest : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("FAKE_NVML_SET"); }

  std::unique_ptr<NvmlBackend> open(const std::string& scenario, const char* library = FAKE_NVML_PATH) {
    setenv("FAKE_NVML_SET", (kFast + scenario).c_str(), 1);
    std::string why_not;
    auto lib = NvmlLibrary::open(library, why_not);
    if (!lib) {
      ADD_FAILURE() << why_not;
      return nullptr;
    }
    auto clock = clock_ns_;
    auto backend = NvmlBackend::open(std::move(lib), why_not, [clock] { return clock->load(); });
    if (!backend) ADD_FAILURE() << why_not;
    return backend;
  }

  // A slow read at `at_ns` on the test's clock.
  DeviceValues read_at(NvmlBackend& backend, std::size_t device, std::int64_t at_ns) {
    clock_ns_->store(at_ns);
    DeviceValues v;
    std::vector<GpuProcess> processes;
    EXPECT_EQ(backend.read_slow(device, SlowReadPlan{}, v, processes), ReadStatus::Ok);
    return v;
  }

  std::shared_ptr<std::atomic<std::int64_t>> clock_ns_ = std::make_shared<std::atomic<std::int64_t>>(0);
};

bool lists(const DeviceInfo& info, DM m) {
  return std::find(info.supported.begin(), info.supported.end(), m) != info.supported.end();
}

std::size_t gpm_values_in(const DeviceValues& v) {
  std::size_t n = 0;
  for (DM m : NvmlGpm::metrics()) n += v.has(m) ? 1 : 0;
  return n;
}

TEST_F(NvmlGpmTest, SupportedDeviceGivesMetricsOnceAWindowReaches100Ms) {
  auto backend = open(kBusyGpu0);
  ASSERT_NE(backend, nullptr);
  const DeviceInfo gpu0 = backend->devices()[0];
  for (DM m : NvmlGpm::metrics()) EXPECT_TRUE(lists(gpu0, m)) << info(m).name;
  ASSERT_EQ(NvmlGpm::metrics().size(), 9U);

  // 50 ms after the first sample (taken at open): no window yet.
  EXPECT_EQ(gpm_values_in(read_at(*backend, 0, 50 * kMs)), 0U);

  const DeviceValues v = read_at(*backend, 0, 1000 * kMs);
  EXPECT_DOUBLE_EQ(*v.get(DM::SmActivePercent), 42);
  EXPECT_DOUBLE_EQ(*v.get(DM::SmOccupancyPercent), 30.5);
  EXPECT_DOUBLE_EQ(*v.get(DM::TensorActivePercent), 55);
  EXPECT_DOUBLE_EQ(*v.get(DM::DramBwUtilPercent), 60);
  EXPECT_DOUBLE_EQ(*v.get(DM::Fp64ActivePercent), 1);
  EXPECT_DOUBLE_EQ(*v.get(DM::Fp32ActivePercent), 2);
  EXPECT_DOUBLE_EQ(*v.get(DM::Fp16ActivePercent), 3);
  EXPECT_DOUBLE_EQ(*v.get(DM::NvlinkTxBytesPerSec), 1000 * 1048576.0);  // MiB/s -> B/s
  EXPECT_DOUBLE_EQ(*v.get(DM::NvlinkRxBytesPerSec), 2000 * 1048576.0);
  for (DM m : NvmlGpm::metrics()) EXPECT_EQ(info(m).cadence, Cadence::Slow) << info(m).name;

  // 99 ms after that sample: skipped, and the sample kept, so that 100 ms
  // after it (not after the skipped read) gives values again.
  EXPECT_EQ(gpm_values_in(read_at(*backend, 0, 1099 * kMs)), 0U);
  EXPECT_EQ(gpm_values_in(read_at(*backend, 0, 1100 * kMs)), 9U);
  // The clock going backwards gives no window either.
  EXPECT_EQ(gpm_values_in(read_at(*backend, 0, 0)), 0U);
}

TEST_F(NvmlGpmTest, DeviceWithoutGpmGivesNone) {
  auto backend = open(std::string(kBusyGpu0) + "gpu1.gpm=0;gpu1.sm_active=42");
  ASSERT_NE(backend, nullptr);
  const DeviceInfo gpu1 = backend->devices()[1];
  for (DM m : NvmlGpm::metrics()) EXPECT_FALSE(lists(gpu1, m)) << info(m).name;
  read_at(*backend, 1, 0);
  EXPECT_EQ(gpm_values_in(read_at(*backend, 1, 1000 * kMs)), 0U);
  EXPECT_EQ(gpm_values_in(read_at(*backend, 0, 1000 * kMs)), 9U);  // its neighbour has them
}

TEST_F(NvmlGpmTest, DeviceRefusingTheSupportQueryGivesNone) {
  auto backend = open(std::string(kBusyGpu0) + "gpu0.unsupported=gpm");
  ASSERT_NE(backend, nullptr);
  for (DM m : NvmlGpm::metrics()) EXPECT_FALSE(lists(backend->devices()[0], m)) << info(m).name;
  EXPECT_EQ(gpm_values_in(read_at(*backend, 0, 1000 * kMs)), 0U);
}

TEST_F(NvmlGpmTest, DriverWithoutGpmSymbolsGivesNone) {
  auto backend = open("", FAKE_NVML_OLD_PATH);  // the old build has no nvmlGpm* symbol
  ASSERT_NE(backend, nullptr);
  for (DM m : NvmlGpm::metrics()) EXPECT_FALSE(lists(backend->devices()[0], m)) << info(m).name;
  EXPECT_EQ(gpm_values_in(read_at(*backend, 0, 1000 * kMs)), 0U);
}

TEST_F(NvmlGpmTest, FailingMetricsGetLeavesValuesAbsent) {
  auto backend = open(std::string(kBusyGpu0) + "gpu0.gpm_error=999");
  ASSERT_NE(backend, nullptr);
  const DeviceValues v = read_at(*backend, 0, 1000 * kMs);
  EXPECT_EQ(gpm_values_in(v), 0U);
  EXPECT_TRUE(v.has(DM::TempGpuCelsius));  // the rest of the slow read is unharmed
  // An unknown error is not final: the next window is tried again.
  EXPECT_EQ(gpm_values_in(read_at(*backend, 0, 2000 * kMs)), 0U);
}

TEST_F(NvmlGpmTest, FailingSampleGetLeavesValuesAbsent) {
  auto backend = open(std::string(kBusyGpu0) + "gpu0.gpm_sample_error=999");
  ASSERT_NE(backend, nullptr);
  // The sample at open failed too: no GPM on this device.
  for (DM m : NvmlGpm::metrics()) EXPECT_FALSE(lists(backend->devices()[0], m)) << info(m).name;
  EXPECT_EQ(gpm_values_in(read_at(*backend, 0, 1000 * kMs)), 0U);
}

TEST_F(NvmlGpmTest, MetricTheDriverRefusesIsAbsentOthersStay) {
  auto backend = open(std::string(kBusyGpu0) + "gpu0.gpm_unsupported=60,61");  // no NVLink
  ASSERT_NE(backend, nullptr);
  const DeviceValues v = read_at(*backend, 0, 1000 * kMs);
  EXPECT_FALSE(v.has(DM::NvlinkTxBytesPerSec));
  EXPECT_FALSE(v.has(DM::NvlinkRxBytesPerSec));
  EXPECT_EQ(gpm_values_in(v), 7U);
  EXPECT_DOUBLE_EQ(*v.get(DM::SmActivePercent), 42);
}

TEST_F(NvmlGpmTest, ValuesAreMeansOverTheWindowAndBadOnesAreDropped) {
  // A share above 100 % is capped; a negative rate is not a rate.
  auto backend = open("gpm=1;gpu0.sm_active=130;gpu0.nvlink_tx_mibs=-5");
  ASSERT_NE(backend, nullptr);
  const DeviceValues v = read_at(*backend, 0, 1000 * kMs);
  EXPECT_DOUBLE_EQ(*v.get(DM::SmActivePercent), 100);
  EXPECT_FALSE(v.has(DM::NvlinkTxBytesPerSec));
  EXPECT_DOUBLE_EQ(*v.get(DM::SmOccupancyPercent), 0);  // an idle GPU: 0, not absent
}

TEST_F(NvmlGpmTest, GpuLostInGpmIsLost) {
  // Every other call succeeds: GPM's own "GPU is lost" must count.
  auto backend = open(std::string(kBusyGpu0) + "gpu0.gpm_error=15");
  ASSERT_NE(backend, nullptr);
  clock_ns_->store(1000 * kMs);
  DeviceValues v;
  std::vector<GpuProcess> processes;
  EXPECT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Lost);
  EXPECT_EQ(backend->read_slow(0, SlowReadPlan{}, v, processes), ReadStatus::Lost);
  EXPECT_EQ(gpm_values_in(v), 0U);
}

}  // namespace
}  // namespace gpuwatch
