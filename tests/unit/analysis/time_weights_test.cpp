// time_weights_s and the load-balance bands of analysis/stats.h. The
// summarize() statistics and the basic band checks live in stats_test.cpp.
#include "analysis/stats.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

TEST(TimeWeights, RegularSpacingGivesHalfAtTheEndsAndOneInside) {
  // 0,1,2,3 s: every gap is 1 s, so each neighbour contributes 0.5 s.
  const std::vector<std::int64_t> t{0, kSec, 2 * kSec, 3 * kSec};
  const std::vector<double> w = time_weights_s(t);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_DOUBLE_EQ(w[0], 0.5);
  EXPECT_DOUBLE_EQ(w[1], 1.0);
  EXPECT_DOUBLE_EQ(w[2], 1.0);
  EXPECT_DOUBLE_EQ(w[3], 0.5);
}

TEST(TimeWeights, IrregularSpacingTakesHalfOfEachNeighbouringGap) {
  // Gaps 1, 2, 1 s; median gap 1 s so the cap is 1.5 s, above every half gap
  // (0.5, 1, 0.5). Weights: 0.5 | 0.5+1 | 1+0.5 | 0.5; they sum to the 4 s span.
  const std::vector<std::int64_t> t{0, kSec, 3 * kSec, 4 * kSec};
  const std::vector<double> w = time_weights_s(t);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_DOUBLE_EQ(w[0], 0.5);
  EXPECT_DOUBLE_EQ(w[1], 1.5);
  EXPECT_DOUBLE_EQ(w[2], 1.5);
  EXPECT_DOUBLE_EQ(w[3], 0.5);
}

TEST(TimeWeights, SubSecondIrregularSpacing) {
  // Gaps 0.2, 0.2, 0.4 s: median 0.2 s -> cap 0.3 s, the 0.4 s gap's half is
  // 0.2 s (uncapped). Weights: 0.1 | 0.1+0.1 | 0.1+0.2 | 0.2.
  const std::vector<std::int64_t> t{0, kSec / 5, 2 * kSec / 5, 4 * kSec / 5};
  const std::vector<double> w = time_weights_s(t);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_DOUBLE_EQ(w[0], 0.1);
  EXPECT_DOUBLE_EQ(w[1], 0.2);
  EXPECT_DOUBLE_EQ(w[2], 0.3);
  EXPECT_DOUBLE_EQ(w[3], 0.2);
}

TEST(TimeWeights, DefaultCapIsOneAndAHalfMedianGaps) {
  // 1 s cadence, then a 10 s pause. Median gap 1 s -> cap 1.5 s, so the
  // pause's half gap (5 s) is capped to 1.5 s on each side of it.
  // Weights: 0.5 | 1 | 1 | 0.5+1.5 | 1.5.
  const std::vector<std::int64_t> t{0, kSec, 2 * kSec, 3 * kSec, 13 * kSec};
  const std::vector<double> w = time_weights_s(t);
  ASSERT_EQ(w.size(), 5u);
  EXPECT_DOUBLE_EQ(w[0], 0.5);
  EXPECT_DOUBLE_EQ(w[1], 1.0);
  EXPECT_DOUBLE_EQ(w[2], 1.0);
  EXPECT_DOUBLE_EQ(w[3], 2.0);
  EXPECT_DOUBLE_EQ(w[4], 1.5);
}

TEST(TimeWeights, ExplicitCapOverridesTheMedianRule) {
  const std::vector<std::int64_t> t{0, kSec, 2 * kSec, 3 * kSec, 13 * kSec};
  // A generous 10 s cap lets the 5 s half gap through: 0.5+5 and 5.
  std::vector<double> w = time_weights_s(t, 10 * kSec);
  ASSERT_EQ(w.size(), 5u);
  EXPECT_DOUBLE_EQ(w[3], 5.5);
  EXPECT_DOUBLE_EQ(w[4], 5.0);
  // A tight 0.25 s cap limits every half gap: 0.25 | 0.5 | 0.5 | 0.5 | 0.25.
  w = time_weights_s(t, kSec / 4);
  ASSERT_EQ(w.size(), 5u);
  EXPECT_DOUBLE_EQ(w[0], 0.25);
  EXPECT_DOUBLE_EQ(w[1], 0.5);
  EXPECT_DOUBLE_EQ(w[2], 0.5);
  EXPECT_DOUBLE_EQ(w[3], 0.5);
  EXPECT_DOUBLE_EQ(w[4], 0.25);
}

TEST(TimeWeights, FewerThanTwoSamplesWeighNothing) {
  const std::vector<std::int64_t> none;
  EXPECT_TRUE(time_weights_s(none).empty());
  const std::vector<std::int64_t> one{5 * kSec};
  const std::vector<double> w = time_weights_s(one);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_DOUBLE_EQ(w[0], 0.0);
}

// --- Balance bands exactly at their edges ---------------------------------

TEST(BalanceEdges, BandJustBelowEachEdgeStaysInTheLowerBand) {
  // The largest double below each edge; stats_test checks 4.999 etc.
  EXPECT_EQ(balance_band(std::nextafter(5.0, 0.0)), BalanceBand::Excellent);
  EXPECT_EQ(balance_band(std::nextafter(10.0, 0.0)), BalanceBand::Good);
  EXPECT_EQ(balance_band(std::nextafter(20.0, 0.0)), BalanceBand::Fair);
  EXPECT_EQ(balance_band(std::nextafter(5.0, 100.0)), BalanceBand::Good);
}

TEST(BalanceEdges, PerGpuValuesWhoseCvIsExactlyFiveAreGood) {
  // Two values m +- d: mean m, population std d, CV = d/m*100 = 5/100*100.
  const std::vector<double> v{95, 105};
  auto b = load_balance(v);
  ASSERT_TRUE(b);
  ASSERT_EQ(b->cv_percent, 5.0);  // lands exactly on the edge
  EXPECT_EQ(b->band, BalanceBand::Good);
  // Four GPUs, two at each side: mean 100, std 5 -> CV 5.
  const std::vector<double> four{95, 95, 105, 105};
  b = load_balance(four);
  ASSERT_TRUE(b);
  ASSERT_EQ(b->cv_percent, 5.0);
  EXPECT_EQ(b->band, BalanceBand::Good);
}

TEST(BalanceEdges, PerGpuValuesJustBelowFiveAreExcellent) {
  // d = 5 - 1/1024 (exact in binary), mean 100: CV = 4.9990234375 %.
  const std::vector<double> v{95 + 1.0 / 1024, 105 - 1.0 / 1024};
  auto b = load_balance(v);
  ASSERT_TRUE(b);
  EXPECT_DOUBLE_EQ(b->cv_percent, 4.9990234375);
  EXPECT_EQ(b->band, BalanceBand::Excellent);
}

TEST(BalanceEdges, PerGpuValuesWhoseCvIsExactlyTenAreFair) {
  // 100 +- 10 -> CV 10.
  const std::vector<double> v{90, 110};
  auto b = load_balance(v);
  ASSERT_TRUE(b);
  ASSERT_EQ(b->cv_percent, 10.0);
  EXPECT_EQ(b->band, BalanceBand::Fair);
}

TEST(BalanceEdges, PerGpuValuesWhoseCvIsExactlyTwentyArePoor) {
  // 100 +- 20 -> CV 20.
  const std::vector<double> v{80, 120};
  auto b = load_balance(v);
  ASSERT_TRUE(b);
  ASSERT_EQ(b->cv_percent, 20.0);
  EXPECT_EQ(b->band, BalanceBand::Poor);
  EXPECT_EQ(to_string(b->band), "poor");
}

}  // namespace
}  // namespace gpuwatch
