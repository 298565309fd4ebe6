#include "analysis/aggregate.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TEST(MeanAcross, GpusSampledTogetherGiveOnePointPerTick) {
  // GPU 1 is read 1 ms after GPU 0 on each 100 ms tick.
  const std::vector<std::int64_t> t0{0, 100 * kMs, 200 * kMs};
  const std::vector<std::int64_t> t1{1 * kMs, 101 * kMs, 201 * kMs};
  const std::vector<double> v0{10, 20, 30};
  const std::vector<double> v1{30, 40, 50};
  const std::vector<TimedColumn> columns{{t0, v0}, {t1, v1}};
  std::vector<std::int64_t> t{7};
  std::vector<double> v{7};
  mean_across(columns, 50 * kMs, 300 * kMs, t, v);
  EXPECT_EQ(t, (std::vector<std::int64_t>{0, 100 * kMs, 200 * kMs}));
  EXPECT_EQ(v, (std::vector<double>{20, 30, 40}));
}

TEST(MeanAcross, ASlowReadHoldsAndALostGpuDropsOut) {
  // GPU 0 reads every tick until 0.5 s (then it is lost); GPU 1's metric is
  // read every fourth tick (NaN between).
  std::vector<std::int64_t> t0;
  std::vector<double> v0;
  std::vector<std::int64_t> t1;
  std::vector<double> v1;
  for (int i = 0; i < 12; ++i) {
    if (i <= 5) {
      t0.push_back(i * 100 * kMs);
      v0.push_back(100);
    }
    t1.push_back(i * 100 * kMs);
    v1.push_back(i % 4 == 0 ? 50 : kNaN);
  }
  const std::vector<TimedColumn> columns{{t0, v0}, {t1, v1}};
  std::vector<std::int64_t> t;
  std::vector<double> v;
  mean_across(columns, 50 * kMs, 300 * kMs, t, v);
  ASSERT_EQ(v.size(), 12u);
  EXPECT_EQ(v[0], 75);  // both
  EXPECT_EQ(v[3], 75);  // GPU 1's read at 0 s is 300 ms old: still counts
  EXPECT_EQ(v[5], 75);  // GPU 1 read again at 400 ms
  EXPECT_EQ(v[8], 75);  // GPU 0's last read (500 ms) is 300 ms old: the limit, still in
  EXPECT_EQ(v[9], 50);  // 400 ms old: gone
  EXPECT_EQ(v[11], 50);
}

TEST(MeanAcross, NoFreshValueIsNaNAndNoSeriesIsNothing) {
  const std::vector<std::int64_t> t0{0, 10'000 * kMs};
  const std::vector<double> v0{5, kNaN};
  const std::vector<TimedColumn> columns{{t0, v0}};
  std::vector<std::int64_t> t;
  std::vector<double> v;
  mean_across(columns, 50 * kMs, 300 * kMs, t, v);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], 5);
  EXPECT_TRUE(std::isnan(v[1]));
  mean_across({}, 50 * kMs, 300 * kMs, t, v);
  EXPECT_TRUE(t.empty());
  EXPECT_TRUE(v.empty());
}

}  // namespace
}  // namespace gpuwatch
