#include "analysis/bootstrap.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/stats.h"
#include "run_data_util.h"

namespace gpuwatch {
namespace {

using run_data_test::ar1;
using run_data_test::kSec;
using run_data_test::white_noise;

std::vector<std::int64_t> ticks(std::size_t n, std::int64_t step = kSec) {
  std::vector<std::int64_t> t;
  for (std::size_t i = 0; i < n; ++i) t.push_back(static_cast<std::int64_t>(i) * step);
  return t;
}

double weighted_mean(const BinnedSeries& b) {
  double sum = 0;
  double weight = 0;
  for (std::size_t i = 0; i < b.values.size(); ++i) {
    sum += b.values[i] * b.weights_ns[i];
    weight += b.weights_ns[i];
  }
  return sum / weight;
}

TEST(BinSeries, ShortSeriesAreKeptAsTheyAre) {
  const std::vector<double> v{1, 2, 3};
  const BinnedSeries b = bin_series(ticks(3), v, 100);
  EXPECT_EQ(b.values, v);
  EXPECT_EQ(b.per_bin, 1u);
  // summarize()'s weights: half a gap at each end.
  EXPECT_EQ(b.weights_ns, (std::vector<double>{0.5e9, 1e9, 0.5e9}));
  EXPECT_DOUBLE_EQ(b.mean_bin_s(), 2.0 / 3.0);
}

TEST(BinSeries, LongSeriesAreBoundedAndKeepTheTimeWeightedMean) {
  const std::vector<double> v = white_noise(10'001, 5, 2, 1);
  const auto t = ticks(v.size());
  const BinnedSeries b = bin_series(t, v, 1000);
  EXPECT_LE(b.values.size(), 1000u);
  EXPECT_EQ(b.per_bin, 11u);  // ceil(10001 / 1000)
  EXPECT_EQ(b.samples, v.size());
  EXPECT_NEAR(weighted_mean(b), summarize(t, v)->mean, 1e-9);
}

TEST(PolitisWhite, WhiteNoiseNeedsNoBlocks) {
  const BlockLength b = politis_white_block_length(white_noise(5000, 0, 1, 7));
  EXPECT_FALSE(b.fallback);
  EXPECT_LE(b.points, 3u);
}

TEST(PolitisWhite, SlowlyVaryingSeriesGetLongBlocks) {
  // AR(1) with phi = 0.9: autocorrelation 1/e after ~10 lags.
  const BlockLength b = politis_white_block_length(ar1(5000, 0, 0.9, 1, 3));
  EXPECT_FALSE(b.fallback);
  EXPECT_GE(b.points, 20u);
  EXPECT_LE(b.points, static_cast<std::size_t>(3 * std::sqrt(5000.0)) + 1);
}

TEST(PolitisWhite, ConstantAndTooShortSeries) {
  EXPECT_EQ(politis_white_block_length(std::vector<double>(50, 3.0)).points, 1u);
  EXPECT_FALSE(politis_white_block_length(std::vector<double>(50, 3.0)).fallback);
  const BlockLength short_series = politis_white_block_length(std::vector<double>{1, 5, 2, 4, 3});
  EXPECT_TRUE(short_series.fallback);
  EXPECT_EQ(short_series.points, 2u);  // round(5^(1/3)) = 2
}

TEST(CircularBlockBootstrap, SameSeedSameMeansOtherSeedOthers) {
  const std::vector<double> v = white_noise(500, 10, 1, 11);
  const BinnedSeries b = bin_series(ticks(v.size()), v, 16384);
  const auto first = circular_block_bootstrap_means(b, 5, 300, 42);
  const auto again = circular_block_bootstrap_means(b, 5, 300, 42);
  const auto other = circular_block_bootstrap_means(b, 5, 300, 43);
  ASSERT_EQ(first.size(), 300u);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
}

TEST(CircularBlockBootstrap, MeansCentreOnTheSampleMeanWithTheIidSpread) {
  const std::vector<double> v = white_noise(4000, 10, 2, 5);
  const BinnedSeries b = bin_series(ticks(v.size()), v, 16384);
  const auto means = circular_block_bootstrap_means(b, 1, 4000, 9);
  double m = 0;
  for (double x : means) m += x;
  m /= static_cast<double>(means.size());
  const double var = sample_variance(means);
  EXPECT_NEAR(m, weighted_mean(b), 0.01);
  // Var(mean) of iid samples: sigma^2 / n = 4 / 4000.
  EXPECT_NEAR(var / (4.0 / 4000), 1, 0.1);
}

// The blocks start where mt19937_64's draws modulo n say, exactly as they
// did with the `%` that a multiply replaced: values are their own indices,
// so each mean is the mean of the starts drawn (sums of whole numbers: exact).
TEST(CircularBlockBootstrap, BlocksStartAtTheGeneratorsDrawsModuloN) {
  for (const std::size_t n : {1UL, 3UL, 1000UL, 4096UL, 65'537UL}) {
    BinnedSeries b;
    for (std::size_t i = 0; i < n; ++i) {
      b.values.push_back(static_cast<double>(i));
      b.weights_ns.push_back(1);
    }
    b.samples = n;
    std::mt19937_64 rng(7);
    for (const double mean : circular_block_bootstrap_means(b, 1, 5, 7)) {
      double starts = 0;
      for (std::size_t draw = 0; draw < n; ++draw) starts += static_cast<double>(rng() % n);
      EXPECT_EQ(mean, starts / static_cast<double>(n)) << n;
    }
  }
}

TEST(CircularBlockBootstrap, ConstantSeriesGiveExactlyTheirValue) {
  const std::vector<double> v(100, 12'345'678'901.0);  // bytes: large values
  const BinnedSeries b = bin_series(ticks(v.size()), v, 16384);
  for (double m : circular_block_bootstrap_means(b, 7, 50, 1)) EXPECT_EQ(m, 12'345'678'901.0);
}

TEST(QuantileSorted, InterpolatesBetweenOrderStatistics) {
  const std::vector<double> v{0, 10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0), 0);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 1), 40);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.5), 20);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.125), 5);
}

}  // namespace
}  // namespace gpuwatch
