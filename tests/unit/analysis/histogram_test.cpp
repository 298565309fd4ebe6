#include "analysis/histogram.h"

#include <cstdint>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

TEST(TimeShareHistogram, SharesFollowTimeNotSampleCount) {
  // 50 % sampled every second for 10 s, then 100 % every 2 s for 39 s: by
  // count 100 % would be two thirds, by time it is 39 s of 49.
  std::vector<std::int64_t> t;
  std::vector<double> v;
  for (int i = 0; i < 10; ++i) {
    t.push_back(i * kSec);
    v.push_back(50);
  }
  for (int i = 0; i < 20; ++i) {
    t.push_back((11 + 2 * i) * kSec);
    v.push_back(100);
  }
  t.push_back(50 * kSec);
  v.push_back(kNaN);  // absent: no weight
  const auto shares = time_share_histogram(t, v, {0, 5, 20});
  ASSERT_EQ(shares.size(), 20u);
  // 100 % lands in the last bin [95, 100]; 50 % in [50, 55).
  EXPECT_NEAR(shares[19], 39.0 / 49, 1e-12);
  EXPECT_NEAR(shares[10], 10.0 / 49, 1e-12);
  EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1, 1e-12);
}

TEST(TimeShareHistogram, OutOfRangeValuesCountInTheEdgeBins) {
  const std::vector<std::int64_t> t{0, kSec, 2 * kSec, 3 * kSec};
  const std::vector<double> v{-10, 1, 2, 500};
  const auto shares = time_share_histogram(t, v, {0, 1, 3});
  EXPECT_NEAR(shares[0], 1.0 / 6, 1e-12);   // -10: half a second of weight
  EXPECT_NEAR(shares[1], 2.0 / 6, 1e-12);
  EXPECT_NEAR(shares[2], 3.0 / 6, 1e-12);   // 2 and 500
}

TEST(TimeShareHistogram, NothingToCountGivesZeros) {
  const std::vector<std::int64_t> t{0, kSec};
  EXPECT_EQ(time_share_histogram(t, std::vector<double>{kNaN, kNaN}, {0, 1, 4}), std::vector<double>(4, 0.0));
  EXPECT_TRUE(time_share_histogram(t, std::vector<double>{1, 2}, {0, 1, 0}).empty());
}

TEST(TimeShareHistogram, WeighedFirstBinnedLaterIsTheSame) {
  // What a plot keeps of each GPU, binned once the run's range is known.
  std::vector<std::int64_t> t;
  std::vector<double> v;
  std::int64_t now = 0;
  for (int i = 0; i < 3000; ++i) {
    now += (i % 5 == 0 ? 3 : 1) * kSec / 10;
    t.push_back(now);
    v.push_back(i % 9 == 0 ? kNaN : (i * 37) % 101);
  }
  const WeightedValues kept = time_weighted_values(t, v);
  EXPECT_EQ(kept.values.size(), 3000u - 334u);  // the absent ones are not kept
  for (const HistogramBins bins : {HistogramBins{0, 5, 20}, HistogramBins{10, 7, 9}, HistogramBins{0, 1, 1}}) {
    EXPECT_EQ(time_share_histogram(kept, bins), time_share_histogram(t, v, bins));
  }
  EXPECT_TRUE(time_share_histogram(WeightedValues{}, {0, 5, 20}) == std::vector<double>(20, 0.0));
}

}  // namespace
}  // namespace gpuwatch
