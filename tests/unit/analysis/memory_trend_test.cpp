#include "analysis/memory_trend.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr double kGB = 1e9;

std::vector<std::int64_t> seconds(std::size_t n) {
  std::vector<std::int64_t> t;
  for (std::size_t i = 0; i < n; ++i) t.push_back(static_cast<std::int64_t>(i) * kSec);
  return t;
}

// 101 samples at 0..100 s growing by 2 MB/s = 7.2e9 B/h from 1 GB.
struct Linear {
  std::vector<std::int64_t> t = seconds(101);
  std::vector<double> v;
  Linear() {
    for (int i = 0; i <= 100; ++i) v.push_back(kGB + 2e6 * i);
  }
};

TEST(MemoryTrend, LinearGrowthGivesItsSlope) {
  const Linear l;
  auto m = memory_trend(l.t, l.v, std::nullopt);
  ASSERT_TRUE(m);
  // 2e6 B/s * 3600 s/h.
  EXPECT_NEAR(m->slope_bytes_per_hour, 7.2e9, 7.2e9 * 1e-6);
  EXPECT_TRUE(m->drops.empty());
  EXPECT_FALSE(m->growth_percent_of_total);
}

TEST(MemoryTrend, SlopeOfIrregularlySampledLinearGrowth) {
  // Same line (2 MB/s) sampled at uneven times: any exact line fits itself.
  const std::vector<std::int64_t> t{0, kSec, 3 * kSec, 4 * kSec, 8 * kSec, 9 * kSec, 10 * kSec,
                                    13 * kSec, 14 * kSec, 16 * kSec, 20 * kSec, 21 * kSec};
  std::vector<double> v;
  for (std::int64_t x : t) v.push_back(kGB + 2e6 * static_cast<double>(x / kSec));
  auto m = memory_trend(t, v, std::nullopt);
  ASSERT_TRUE(m);
  EXPECT_NEAR(m->slope_bytes_per_hour, 7.2e9, 7.2e9 * 1e-6);
}

TEST(MemoryTrend, TenthMeansOfLinearGrowthAreTimeWeighted) {
  // Span 100 s, a tenth is 10 s. First tenth: samples 0..10 s with weights
  // 0.5, 1 x 10 (total 10.5): mean time (0*0.5 + 1+...+10)/10.5 = 55/10.5 s.
  // Last tenth: 90..100 s with weights 1 x 10, 0.5: mean time
  // (90+...+99 + 0.5*100)/10.5 = 995/10.5 s. Values are 1e9 + 2e6 * time.
  const Linear l;
  auto m = memory_trend(l.t, l.v, std::nullopt);
  ASSERT_TRUE(m);
  EXPECT_NEAR(m->first_tenth_mean_bytes, kGB + 2e6 * 55 / 10.5, 1e-3);
  EXPECT_NEAR(m->last_tenth_mean_bytes, kGB + 2e6 * 995 / 10.5, 1e-3);
  EXPECT_NEAR(m->growth_bytes, 2e6 * 940 / 10.5, 1e-3);  // 179.05 MB
}

TEST(MemoryTrend, TenthMeansOfAStepAreTheLevels) {
  // 1 GB through the first tenth (0..10 s), 3 GB through the last (90..100 s),
  // 2 GB in between: tenth means exactly 1 and 3 GB, growth 2 GB.
  const auto t = seconds(101);
  std::vector<double> v;
  for (int i = 0; i <= 100; ++i) v.push_back(i <= 10 ? 1 * kGB : i >= 90 ? 3 * kGB : 2 * kGB);
  auto m = memory_trend(t, v, 80 * kGB);
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(m->first_tenth_mean_bytes, 1 * kGB);
  EXPECT_DOUBLE_EQ(m->last_tenth_mean_bytes, 3 * kGB);
  EXPECT_DOUBLE_EQ(m->growth_bytes, 2 * kGB);
  ASSERT_TRUE(m->growth_percent_of_total);
  EXPECT_DOUBLE_EQ(*m->growth_percent_of_total, 2.5);  // 2 of 80 GB
  EXPECT_FALSE(m->leak_suspected);                       // 2.5 % < 5 %
  EXPECT_GT(m->slope_bytes_per_hour, 0);
}

TEST(MemoryTrend, GrowthAboveFivePercentOfTotalIsALeakSuspect) {
  // Growth 2e6*940/10.5 = 179.05 MB. Of 2 GB that is 8.95 % (> 5 %).
  const Linear l;
  auto m = memory_trend(l.t, l.v, 2 * kGB);
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->growth_percent_of_total);
  EXPECT_NEAR(*m->growth_percent_of_total, 2e6 * 940 / 10.5 / (2 * kGB) * 100, 1e-9);
  EXPECT_TRUE(m->leak_suspected);
}

TEST(MemoryTrend, GrowthBelowFivePercentOfTotalIsNot) {
  // 179.05 MB of 4 GB is 4.48 % (< 5 %).
  const Linear l;
  auto m = memory_trend(l.t, l.v, 4 * kGB);
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->growth_percent_of_total);
  EXPECT_NEAR(*m->growth_percent_of_total, 2e6 * 940 / 10.5 / (4 * kGB) * 100, 1e-9);
  EXPECT_FALSE(m->leak_suspected);
}

TEST(MemoryTrend, WithoutTotalGrowthIsMeasuredAgainstTheFirstTenth) {
  // 179.05 MB of a first tenth of ~1.01 GB is ~17.7 % (> 5 %).
  const Linear l;
  auto m = memory_trend(l.t, l.v, std::nullopt);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->leak_suspected);
  // Growing 179 MB on 40 GB already in use is 0.45 %: no suspect.
  std::vector<double> big;
  for (double x : l.v) big.push_back(x + 39 * kGB);
  m = memory_trend(l.t, big, std::nullopt);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->leak_suspected);
}

TEST(MemoryTrend, SuddenDropIsReportedOnceWithItsLevels) {
  // 10 GB for 0..14 s, 2 GB from 15 s to 39 s: a fall of 8 GB (80 %) in one
  // step. It began at 14 s (the last sample at the high level). As the 5 s
  // window slides past, the low level must not raise it again.
  const auto t = seconds(40);
  std::vector<double> v;
  for (int i = 0; i < 40; ++i) v.push_back(i < 15 ? 10 * kGB : 2 * kGB);
  auto m = memory_trend(t, v, 80 * kGB);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->drops.size(), 1u);
  EXPECT_EQ(m->drops[0].time_ns, 14 * kSec);
  EXPECT_DOUBLE_EQ(m->drops[0].from_bytes, 10 * kGB);
  EXPECT_DOUBLE_EQ(m->drops[0].to_bytes, 2 * kGB);
  EXPECT_FALSE(m->leak_suspected);
  EXPECT_LT(m->slope_bytes_per_hour, 0);
}

// A fall over two samples (10 GB -> 6 GB -> 2 GB, one second apart) is one
// drop {14 s, 10 GB -> 2 GB}; the intermediate level must not start a second
// one when the 10 GB sample leaves the window.
TEST(MemoryTrend, DropOverSeveralSamplesIsReportedOnce) {
  const auto t = seconds(40);
  std::vector<double> v;
  for (int i = 0; i < 40; ++i) v.push_back(i < 15 ? 10 * kGB : i == 15 ? 6 * kGB : 2 * kGB);
  auto m = memory_trend(t, v, 80 * kGB);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->drops.size(), 1u);
  EXPECT_EQ(m->drops[0].time_ns, 14 * kSec);
  EXPECT_DOUBLE_EQ(m->drops[0].from_bytes, 10 * kGB);
  EXPECT_DOUBLE_EQ(m->drops[0].to_bytes, 2 * kGB);
}

TEST(MemoryTrend, TwoSeparateDropsAreTwoDrops) {
  // 12 GB -> 6 GB at 10/11 s, back up to 12 GB at 20 s, -> 3 GB at 30/31 s.
  const auto t = seconds(41);
  std::vector<double> v;
  for (int i = 0; i <= 40; ++i) v.push_back(i <= 10 ? 12 * kGB : i < 20 ? 6 * kGB : i <= 30 ? 12 * kGB : 3 * kGB);
  auto m = memory_trend(t, v, 80 * kGB);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->drops.size(), 2u);
  EXPECT_EQ(m->drops[0].time_ns, 10 * kSec);
  EXPECT_DOUBLE_EQ(m->drops[0].from_bytes, 12 * kGB);
  EXPECT_DOUBLE_EQ(m->drops[0].to_bytes, 6 * kGB);
  EXPECT_EQ(m->drops[1].time_ns, 30 * kSec);
  EXPECT_DOUBLE_EQ(m->drops[1].from_bytes, 12 * kGB);
  EXPECT_DOUBLE_EQ(m->drops[1].to_bytes, 3 * kGB);
}

TEST(MemoryTrend, SlowDeclineIsNotADrop) {
  // 10 GB falling 10 MB/s for 900 s, to 1 GB: a 90 % decline overall, but
  // within any 5 s window only 50 MB (< 256 MiB and < 25 %).
  const auto t = seconds(901);
  std::vector<double> v;
  for (int i = 0; i <= 900; ++i) v.push_back(10 * kGB - 1e7 * i);
  auto m = memory_trend(t, v, 80 * kGB);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->drops.empty());
  EXPECT_NEAR(m->slope_bytes_per_hour, -3.6e10, 3.6e10 * 1e-6);
  EXPECT_FALSE(m->leak_suspected);
}

TEST(MemoryTrend, SmallFallsBelowEitherThresholdAreNotDrops) {
  // 200 MB fall from 400 MB: 50 % but under 256 MiB. 1 GB fall from 80 GB:
  // over 256 MiB but 1.25 % (< 25 %).
  const auto t = seconds(20);
  std::vector<double> small;
  std::vector<double> shallow;
  for (int i = 0; i < 20; ++i) {
    small.push_back(i < 10 ? 4e8 : 2e8);
    shallow.push_back(i < 10 ? 80 * kGB : 79 * kGB);
  }
  auto m = memory_trend(t, small, std::nullopt);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->drops.empty());
  m = memory_trend(t, shallow, std::nullopt);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->drops.empty());
}

TEST(MemoryTrend, FewerThanTenSamplesGiveNothing) {
  const auto t9 = seconds(9);
  const std::vector<double> v9(9, kGB);
  EXPECT_FALSE(memory_trend(t9, v9, 80 * kGB));
  const auto t10 = seconds(10);
  const std::vector<double> v10(10, kGB);
  EXPECT_TRUE(memory_trend(t10, v10, 80 * kGB));
  // Twelve samples of which three are absent: nine present.
  const auto t12 = seconds(12);
  std::vector<double> v12(12, kGB);
  v12[1] = v12[5] = v12[11] = kNaN;
  EXPECT_FALSE(memory_trend(t12, v12, 80 * kGB));
}

TEST(MemoryTrend, FlatUsageHasNoSlopeNoGrowthNoLeak) {
  const auto t = seconds(50);
  const std::vector<double> v(50, 5 * kGB);
  auto m = memory_trend(t, v, 80 * kGB);
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(m->slope_bytes_per_hour, 0.0);
  EXPECT_DOUBLE_EQ(m->growth_bytes, 0.0);
  EXPECT_FALSE(m->leak_suspected);
  EXPECT_TRUE(m->drops.empty());
}

}  // namespace
}  // namespace gpuwatch
