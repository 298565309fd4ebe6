#include "analysis/stats.h"

#include "core/metrics.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

TEST(Summarize, RegularSamplesGiveThePlainStatistics) {
  // 0,1,...,9 one second apart: weights are 0.5 at the ends and 1 inside.
  std::vector<std::int64_t> t;
  std::vector<double> v;
  for (int i = 0; i < 10; ++i) {
    t.push_back(i * kSec);
    v.push_back(i);
  }
  auto s = summarize(t, v);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->count, 10u);
  EXPECT_DOUBLE_EQ(s->span_s, 9.0);
  EXPECT_DOUBLE_EQ(s->mean, 4.5);  // symmetric weights
  EXPECT_DOUBLE_EQ(s->min, 0);
  EXPECT_DOUBLE_EQ(s->max, 9);
  // Cumulative weight reaches 0.5*9=4.5 at value 4 (0.5+1+1+1+1=4.5).
  EXPECT_DOUBLE_EQ(s->p50, 4);
  // 0.95*9 = 8.55: cumulative after value 8 is 8.5, so p95 is 9.
  EXPECT_DOUBLE_EQ(s->p95, 9);
}

TEST(Summarize, IrregularSamplingIsTimeWeighted) {
  // Value 100 for 1 s sampled ten times, then value 0 for 9 s sampled twice.
  // A plain mean would say ~83; by time it is about 10.
  std::vector<std::int64_t> t;
  std::vector<double> v;
  for (int i = 0; i < 10; ++i) {
    t.push_back(i * kSec / 10);
    v.push_back(100);
  }
  t.push_back(1 * kSec);
  v.push_back(0);
  t.push_back(10 * kSec);
  v.push_back(0);
  // Cap gaps generously so the 9 s stretch counts in full.
  auto s = summarize(t, v, 10 * kSec);
  ASSERT_TRUE(s);
  // Weights: 100 holds 0.05 + 8*0.1 + 0.1 = 0.95 s; 0 holds 0.05+4.5+4.5 = 9.05 s.
  EXPECT_NEAR(s->mean, 100 * 0.95 / 10.0, 1e-9);
}

TEST(Summarize, LongGapsAreCappedSoOneSampleCannotDominate) {
  // 1 s cadence, then one sample after a 1000 s pause (a suspended machine).
  std::vector<std::int64_t> t{0, kSec, 2 * kSec, 3 * kSec, 1003 * kSec};
  std::vector<double> v{10, 10, 10, 10, 90};
  auto s = summarize(t, v);
  ASSERT_TRUE(s);
  // Median gap 1 s, cap 1.5 s: 90 weighs 1.5 s against 10's 3.5+... so mean stays low.
  EXPECT_LT(s->mean, 40);
}

TEST(Summarize, AbsentValuesAreSkippedAndAllAbsentGivesNothing) {
  std::vector<std::int64_t> t{0, kSec, 2 * kSec};
  std::vector<double> v{kNaN, 5, kNaN};
  auto s = summarize(t, v);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->count, 1u);
  EXPECT_DOUBLE_EQ(s->mean, 5);
  std::vector<double> none{kNaN, kNaN, kNaN};
  EXPECT_FALSE(summarize(t, none));
}

TEST(Summarize, StdIsTheTimeWeightedPopulationStd) {
  std::vector<std::int64_t> t{0, kSec, 2 * kSec, 3 * kSec};
  std::vector<double> v{2, 4, 4, 2};
  auto s = summarize(t, v);
  ASSERT_TRUE(s);
  // Weights 0.5,1,1,0.5 -> mean 3.333..., var = (0.5*1.777+1*0.444+1*0.444+0.5*1.777)/3
  const double mean = (1 + 4 + 4 + 1) / 3.0;
  const double var = (0.5 * (2 - mean) * (2 - mean) * 2 + 1 * (4 - mean) * (4 - mean) * 2) / 3.0;
  EXPECT_NEAR(s->mean, mean, 1e-12);
  EXPECT_NEAR(s->std, std::sqrt(var), 1e-12);
}

TEST(Balance, BandsAtTheirExactEdges) {
  EXPECT_EQ(balance_band(0), BalanceBand::Excellent);
  EXPECT_EQ(balance_band(4.999), BalanceBand::Excellent);
  EXPECT_EQ(balance_band(5.0), BalanceBand::Good);
  EXPECT_EQ(balance_band(9.999), BalanceBand::Good);
  EXPECT_EQ(balance_band(10.0), BalanceBand::Fair);
  EXPECT_EQ(balance_band(19.999), BalanceBand::Fair);
  EXPECT_EQ(balance_band(20.0), BalanceBand::Poor);
  EXPECT_EQ(balance_band(250), BalanceBand::Poor);
}

TEST(Balance, CoefficientOfVariationOfPerGpuMeans) {
  // Seed 001's example: 12800, 12750, 12825, 12780 MB. Its text says 0.3 %;
  // the population CV of these numbers is 0.2148 %.
  std::vector<double> mem{12800, 12750, 12825, 12780};
  auto b = load_balance(mem);
  ASSERT_TRUE(b);
  EXPECT_NEAR(b->cv_percent, 0.21481, 1e-4);
  EXPECT_EQ(b->band, BalanceBand::Excellent);

  std::vector<double> util{90, 90, 90, 30};
  b = load_balance(util);
  ASSERT_TRUE(b);
  // mean 75, std sqrt((3*225+2025)/4)=25.98 -> 34.6 %
  EXPECT_NEAR(b->cv_percent, 34.641, 1e-3);
  EXPECT_EQ(b->band, BalanceBand::Poor);
  EXPECT_EQ(b->straggler, 3u);
}

TEST(Moments, AgreeWithSummarizeWithoutSorting) {
  // Irregular times, absent values, a long pause and a large offset (bytes):
  // moments must give summarize()'s numbers, bit for bit.
  std::vector<std::int64_t> t;
  std::vector<double> v;
  std::int64_t now = 0;
  for (int i = 0; i < 5000; ++i) {
    now += (i % 7 == 0 ? 3 : 1) * kSec / 10 + (i == 2500 ? 600 * kSec : 0);
    t.push_back(now);
    v.push_back(i % 11 == 0 ? kNaN : 4e10 + 1e6 * std::sin(i * 0.01) + (i % 13) * 1e5);
  }
  const auto s = summarize(t, v);
  const auto m = moments(t, v);
  ASSERT_TRUE(s && m);
  EXPECT_EQ(m->count, s->count);
  EXPECT_EQ(m->mean, s->mean);
  EXPECT_EQ(m->std, s->std);
  EXPECT_EQ(m->min, s->min);
  EXPECT_EQ(m->max, s->max);
  EXPECT_EQ(m->span_s, s->span_s);
  // A column without absent values over a shared axis: the axis's weights.
  std::vector<double> dense(v);
  for (double& x : dense) x = std::isnan(x) ? 7 : x;
  const TimeAxis axis(t);
  const auto from_axis = moments(axis, dense);
  const auto direct = summarize(t, dense);
  ASSERT_TRUE(from_axis && direct);
  EXPECT_EQ(from_axis->mean, direct->mean);
  EXPECT_EQ(from_axis->std, direct->std);
  EXPECT_EQ(moments(axis, v)->mean, m->mean);  // absent values: weights of their own
  // The weights themselves: absent values weigh nothing.
  const auto w = time_weights(t, v);
  EXPECT_EQ(w[0], 0);  // i = 0 is absent
  EXPECT_GT(w[1], 0);

  const std::vector<std::int64_t> one_t{5};
  const std::vector<double> one_v{42};
  EXPECT_DOUBLE_EQ(moments(one_t, one_v)->mean, 42);
  EXPECT_DOUBLE_EQ(moments(one_t, one_v)->span_s, 0);
  EXPECT_FALSE(moments(one_t, std::vector<double>{kNaN}));
}

TEST(Balance, TwoGpusHaveNoStraggler) {
  // Both are 20 from their mean of 70: naming either would be arbitrary.
  std::vector<double> util{50, 90};
  auto b = load_balance(util);
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->straggler);
  EXPECT_NEAR(b->cv_percent, 100 * 20 / 70.0, 1e-9);
}

TEST(Balance, NeedsTwoGpusAndToleratesAllIdle) {
  std::vector<double> one{50};
  EXPECT_FALSE(load_balance(one));
  std::vector<double> idle{0, 0};
  auto b = load_balance(idle);
  ASSERT_TRUE(b);
  EXPECT_DOUBLE_EQ(b->cv_percent, 0);
}

TEST(SampleVariance, DividesByNMinusOne) {
  EXPECT_DOUBLE_EQ(sample_variance(std::vector<double>{1, 2, 3, 4}), 5.0 / 3.0);
  EXPECT_EQ(sample_variance(std::vector<double>{7}), 0);
  EXPECT_EQ(sample_variance(std::vector<double>{}), 0);
}

TEST(Summarize, PercentilesAgreeWithSortingAndScanning) {
  // Irregular times and many repeated values (like fixed-point driver
  // readings), so the quickselect meets ties at every level; the expected
  // answers come from sorting (value, weight) pairs and scanning.
  std::uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (int trial = 0; trial < 48; ++trial) {
    // Long series too: they take the bucketed path (more than 16384 points).
    const std::size_t n = trial < 40 ? 1 + next() % 3000 : 20000 + next() % 60000;
    std::vector<std::int64_t> t;
    std::vector<double> v;
    std::int64_t now = 0;
    for (std::size_t i = 0; i < n; ++i) {
      now += 1 + static_cast<std::int64_t>(next() % 5) * kSec / 10;
      t.push_back(now);
      v.push_back(trial % 2 ? static_cast<double>(next() % 7) : static_cast<double>(next() % 100000) / 7.0);
    }
    const auto s = summarize(t, v);
    ASSERT_TRUE(s);
    std::vector<double> w = time_weights_ns(t);
    std::vector<std::pair<double, double>> pairs;
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double weight = n == 1 ? 1 : w[i];
      pairs.emplace_back(v[i], weight);
      total += weight;
    }
    std::sort(pairs.begin(), pairs.end());
    const auto brute = [&](double q) {
      double seen = 0;
      for (const auto& [value, weight] : pairs) {
        seen += weight;
        if (seen >= q * total) return value;
      }
      return pairs.back().first;
    };
    EXPECT_EQ(s->p50, brute(0.50)) << "trial " << trial << " n " << n;
    EXPECT_EQ(s->p95, brute(0.95)) << "trial " << trial << " n " << n;
  }
}

}  // namespace
}  // namespace gpuwatch
