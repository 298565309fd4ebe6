#include "analysis/bench_analysis.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

DeviceSeries gpu(int index, std::vector<double> util, std::vector<double> reasons) {
  DeviceSeries d;
  d.info.index = index;
  d.values.resize(kDeviceMetricCount);
  for (std::size_t i = 0; i < util.size(); ++i) {
    d.mono_ns.push_back(static_cast<std::int64_t>(i) * kSec);
    d.wall_ns.push_back(static_cast<std::int64_t>(i) * kSec);
    d.values[static_cast<std::size_t>(DeviceMetric::GpuUtilPercent)].push_back(util[i]);
    d.values[static_cast<std::size_t>(DeviceMetric::MemUsedBytes)].push_back(1024.0 * 1024 * (100 + i));
    d.values[static_cast<std::size_t>(DeviceMetric::ClockEventReasons)].push_back(reasons[i]);
    for (auto m : {DeviceMetric::PowerWatts, DeviceMetric::TempGpuCelsius}) {
      d.values[static_cast<std::size_t>(m)].push_back(kNaN);
    }
  }
  return d;
}

TEST(BenchResources, OnlyTheTestsWindowAndGpuCount) {
  RunData data;
  // GPU 0 busy from 2 s to 6 s, power-capped at 4 and 5 s; GPU 1 idle.
  data.devices.push_back(gpu(0, {0, 0, 90, 100, 100, 100, 100, 0}, {0, 0, 0, 0, 4, 4, 0, 0}));
  data.devices.push_back(gpu(1, {0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}));
  const TestResources r = test_resources(data, {2 * kSec, 6 * kSec, 0});
  ASSERT_TRUE(r.gpu_util_percent);
  EXPECT_EQ(r.gpu_util_percent->min, 90);
  EXPECT_EQ(r.gpu_util_percent->max, 100);
  EXPECT_EQ(r.gpu_util_percent->samples, 5u);
  // Time-weighted: the 90 at the window's edge weighs half a second of 4.
  EXPECT_DOUBLE_EQ(r.gpu_util_percent->avg, (0.5 * 90 + 3 * 100 + 0.5 * 100) / 4);
  EXPECT_EQ(r.gpu_memory_mb->max, 106);
  EXPECT_FALSE(r.gpu_power_watts.has_value());  // never read
  ASSERT_TRUE(r.throttled_percent);
  EXPECT_DOUBLE_EQ(*r.throttled_percent, 50);  // the samples at 4 s and 5 s stand for 1 s each, of 4 s
  EXPECT_EQ(r.throttle_reasons, std::vector<std::string>{"sw_power_cap"});
  const TestResources both = test_resources(data, {2 * kSec, 6 * kSec, std::nullopt});
  EXPECT_EQ(both.gpu_util_percent->min, 0);
  EXPECT_EQ(both.gpu_util_percent->samples, 10u);
  const TestResources none = test_resources(data, {20 * kSec, 30 * kSec, 0});
  EXPECT_FALSE(none.gpu_util_percent.has_value());
  EXPECT_FALSE(none.throttled_percent.has_value());
}

TEST(BenchSpread, TheSlowGpuIsTheStraggler) {
  const std::vector<int> gpus{0, 1, 2, 3};
  const auto even = gpu_spread(gpus, std::vector<double>{700, 702, 698, 701});
  ASSERT_TRUE(even);
  EXPECT_EQ(even->band, BalanceBand::Excellent);
  EXPECT_FALSE(even->straggler_gpu.has_value());
  const auto slow = gpu_spread(gpus, std::vector<double>{700, 702, 450, 701});
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->straggler_gpu, 2);
  EXPECT_GT(slow->cv_percent, 10);
  const auto fast = gpu_spread(gpus, std::vector<double>{700, 702, 950, 701});
  EXPECT_FALSE(fast->straggler_gpu.has_value());  // one faster GPU drags nobody
  EXPECT_FALSE(gpu_spread(std::vector<int>{0}, std::vector<double>{1}).has_value());
}

TEST(BenchPeaks, DatasheetsAndLinks) {
  EXPECT_DOUBLE_EQ(datasheet_matmul_peak("NVIDIA H100 80GB HBM3", "bf16")->value, 989.4);
  EXPECT_DOUBLE_EQ(datasheet_matmul_peak("NVIDIA H100 PCIe", "bf16")->value, 756);
  EXPECT_DOUBLE_EQ(datasheet_memory_bandwidth("NVIDIA H200")->value, 4800);
  EXPECT_FALSE(datasheet_matmul_peak("NVIDIA A100-SXM4-80GB", "fp8").has_value());  // no fp8 on Ampere
  EXPECT_FALSE(datasheet_matmul_peak("Tesla T4", "fp16").has_value());
  EXPECT_NEAR(pcie_link_peak(5, 16)->value, 63.015, 0.001);  // 32 GT/s x 16 x 128/130 / 8
  EXPECT_NEAR(pcie_link_peak(2, 8)->value, 4.0, 1e-9);        // 5 GT/s, 8b/10b
  EXPECT_FALSE(pcie_link_peak(0, 16).has_value());
  EXPECT_FALSE(pcie_link_peak(6, 16).has_value());
}

}  // namespace
}  // namespace gpuwatch
