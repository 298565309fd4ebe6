#include "analysis/throttle.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

std::vector<std::int64_t> seconds(std::size_t n) {
  std::vector<std::int64_t> t;
  for (std::size_t i = 0; i < n; ++i) t.push_back(static_cast<std::int64_t>(i) * kSec);
  return t;
}

TEST(Throttle, PowerCapHalfTheTimeIsFiftyPercent) {
  // 10 samples 1 s apart: weights 0.5, 1 x 8, 0.5 (9 s). Alternating power
  // cap (0x4) / nothing: even samples weigh 0.5+1+1+1+1 = 4.5 s, odd ones
  // 1+1+1+1+0.5 = 4.5 s -> exactly half.
  const auto t = seconds(10);
  std::vector<double> m;
  for (int i = 0; i < 10; ++i) m.push_back(i % 2 == 0 ? 0x4 : 0);
  const ThrottleReport r = throttle_time(t, m);
  EXPECT_DOUBLE_EQ(r.sampled_s, 9.0);
  EXPECT_DOUBLE_EQ(r.throttled_s, 4.5);
  EXPECT_DOUBLE_EQ(r.throttled_percent, 50.0);
  EXPECT_DOUBLE_EQ(r.power_percent, 50.0);
  EXPECT_DOUBLE_EQ(r.thermal_percent, 0.0);
  ASSERT_EQ(r.by_reason.size(), 1u);
  EXPECT_EQ(r.by_reason[0].reason.bit, 0x4u);
  EXPECT_EQ(r.by_reason[0].reason.name, "sw_power_cap");
  EXPECT_DOUBLE_EQ(r.by_reason[0].seconds, 4.5);
  EXPECT_DOUBLE_EQ(r.by_reason[0].percent, 50.0);
}

TEST(Throttle, ThermalBitsCountAsThermal) {
  // 5 samples, weights 0.5, 1, 1, 1, 0.5 (4 s). Masks: sw thermal (0x20),
  // hw thermal (0x40), none, both (0x60), none.
  // Thermal time 0.5+1+1 = 2.5 s -> 62.5 %; sw 0.5+1 = 1.5 s (37.5 %),
  // hw 1+1 = 2 s (50 %). The 0x60 sample counts once in the total.
  const auto t = seconds(5);
  const std::vector<double> m{0x20, 0x40, 0, 0x60, 0};
  const ThrottleReport r = throttle_time(t, m);
  EXPECT_DOUBLE_EQ(r.sampled_s, 4.0);
  EXPECT_DOUBLE_EQ(r.throttled_s, 2.5);
  EXPECT_DOUBLE_EQ(r.throttled_percent, 62.5);
  EXPECT_DOUBLE_EQ(r.thermal_percent, 62.5);
  EXPECT_DOUBLE_EQ(r.power_percent, 0.0);
  ASSERT_EQ(r.by_reason.size(), 2u);
  EXPECT_EQ(r.by_reason[0].reason.name, "sw_thermal_slowdown");
  EXPECT_DOUBLE_EQ(r.by_reason[0].seconds, 1.5);
  EXPECT_DOUBLE_EQ(r.by_reason[0].percent, 37.5);
  EXPECT_EQ(r.by_reason[1].reason.name, "hw_thermal_slowdown");
  EXPECT_DOUBLE_EQ(r.by_reason[1].seconds, 2.0);
  EXPECT_DOUBLE_EQ(r.by_reason[1].percent, 50.0);
  EXPECT_EQ(r.by_reason[1].reason.kind, ThrottleKind::Thermal);
}

TEST(Throttle, IdleBitIsListedButNotThrottling) {
  // gpu_idle (0x1) all the time: 100 % in its row, 0 % throttled.
  const auto t = seconds(5);
  const std::vector<double> m(5, 0x1);
  const ThrottleReport r = throttle_time(t, m);
  EXPECT_DOUBLE_EQ(r.sampled_s, 4.0);
  EXPECT_DOUBLE_EQ(r.throttled_s, 0.0);
  EXPECT_DOUBLE_EQ(r.throttled_percent, 0.0);
  EXPECT_DOUBLE_EQ(r.power_percent, 0.0);
  EXPECT_DOUBLE_EQ(r.thermal_percent, 0.0);
  ASSERT_EQ(r.by_reason.size(), 1u);
  EXPECT_EQ(r.by_reason[0].reason.name, "gpu_idle");
  EXPECT_EQ(r.by_reason[0].reason.kind, ThrottleKind::NotThrottling);
  EXPECT_DOUBLE_EQ(r.by_reason[0].percent, 100.0);
}

TEST(Throttle, IdleBitNextToARealReasonStillCountsTheReason) {
  // 0x1 | 0x4 on the first two samples (0.5 + 1 = 1.5 of 4 s): 37.5 % power.
  const auto t = seconds(5);
  const std::vector<double> m{0x5, 0x5, 0x1, 0x1, 0x1};
  const ThrottleReport r = throttle_time(t, m);
  EXPECT_DOUBLE_EQ(r.throttled_percent, 37.5);
  EXPECT_DOUBLE_EQ(r.power_percent, 37.5);
  ASSERT_EQ(r.by_reason.size(), 2u);
  EXPECT_EQ(r.by_reason[0].reason.name, "gpu_idle");
  EXPECT_DOUBLE_EQ(r.by_reason[0].percent, 100.0);
  EXPECT_EQ(r.by_reason[1].reason.name, "sw_power_cap");
  EXPECT_DOUBLE_EQ(r.by_reason[1].percent, 37.5);
}

TEST(Throttle, SeveralBitsAtOnceCountInEachReason) {
  // Power cap (0x4) + hw slowdown (0x8) + sw thermal (0x20) the whole time:
  // each reason 100 %, the total 100 % (not 300 %), power and thermal 100 %.
  const auto t = seconds(4);
  const std::vector<double> m(4, 0x4 | 0x8 | 0x20);
  const ThrottleReport r = throttle_time(t, m);
  EXPECT_DOUBLE_EQ(r.sampled_s, 3.0);
  EXPECT_DOUBLE_EQ(r.throttled_s, 3.0);
  EXPECT_DOUBLE_EQ(r.throttled_percent, 100.0);
  EXPECT_DOUBLE_EQ(r.power_percent, 100.0);
  EXPECT_DOUBLE_EQ(r.thermal_percent, 100.0);
  ASSERT_EQ(r.by_reason.size(), 3u);  // table order
  EXPECT_EQ(r.by_reason[0].reason.name, "sw_power_cap");
  EXPECT_EQ(r.by_reason[1].reason.name, "hw_slowdown");
  EXPECT_EQ(r.by_reason[1].reason.kind, ThrottleKind::Hardware);
  EXPECT_EQ(r.by_reason[2].reason.name, "sw_thermal_slowdown");
  for (const ThrottleTime& tt : r.by_reason) {
    EXPECT_DOUBLE_EQ(tt.seconds, 3.0);
    EXPECT_DOUBLE_EQ(tt.percent, 100.0);
  }
}

TEST(Throttle, HardwarePowerBrakeIsPower) {
  // 0x80 on one of two samples (weights 0.5, 0.5): 50 % power.
  const auto t = seconds(2);
  const std::vector<double> m{0x80, 0};
  const ThrottleReport r = throttle_time(t, m);
  EXPECT_DOUBLE_EQ(r.power_percent, 50.0);
  EXPECT_DOUBLE_EQ(r.thermal_percent, 0.0);
  EXPECT_DOUBLE_EQ(r.throttled_percent, 50.0);
}

TEST(Throttle, AbsentMasksAreSkipped) {
  // Present at 1 s (power cap) and 3 s (none) only: one 2 s gap, weights 1 and
  // 1 -> sampled 2 s, 50 % power. Counting the NaNs as "no reason" would give
  // 4 s sampled and 25 %.
  const auto t = seconds(5);
  const std::vector<double> m{kNaN, 0x4, kNaN, 0, kNaN};
  const ThrottleReport r = throttle_time(t, m);
  EXPECT_DOUBLE_EQ(r.sampled_s, 2.0);
  EXPECT_DOUBLE_EQ(r.throttled_s, 1.0);
  EXPECT_DOUBLE_EQ(r.power_percent, 50.0);
}

TEST(Throttle, NoMaskAtAllGivesZeros) {
  const auto t = seconds(3);
  const std::vector<double> m(3, kNaN);
  const ThrottleReport r = throttle_time(t, m);
  EXPECT_DOUBLE_EQ(r.sampled_s, 0.0);
  EXPECT_DOUBLE_EQ(r.throttled_percent, 0.0);
  EXPECT_TRUE(r.by_reason.empty());
}

}  // namespace
}  // namespace gpuwatch
