#include "analysis/idle_gaps.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr double kBusy = 80;
constexpr double kIdle = 0;

// Samples one second apart, at 0, 1, 2, ... s.
std::vector<std::int64_t> seconds(std::size_t n) {
  std::vector<std::int64_t> t;
  for (std::size_t i = 0; i < n; ++i) t.push_back(static_cast<std::int64_t>(i) * kSec);
  return t;
}

TEST(IdleGaps, RegularGapsEveryThreeSeconds) {
  // 1 s cadence, pattern busy, idle, idle repeated, ending busy at 12 s:
  // idle at 1-2, 4-5, 7-8, 10-11 s. Every interior sample weighs 1 s (half
  // of each 1 s neighbour gap), so each gap lasts exactly 2 s: 4 gaps, 8 s.
  // Each gap starts half-way back to the busy sample before: 0.5, 3.5, 6.5,
  // 9.5 s, so every start-to-start period is 3 s and their spread is 0.
  const auto t = seconds(13);
  std::vector<double> u;
  for (std::size_t i = 0; i < 13; ++i) u.push_back(i % 3 == 0 ? kBusy : kIdle);
  auto r = find_idle_gaps(t, u);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->count, 4u);
  EXPECT_DOUBLE_EQ(r->total_s, 8.0);
  EXPECT_DOUBLE_EQ(r->longest_s, 2.0);
  EXPECT_DOUBLE_EQ(r->busy_span_s, 12.0);  // first busy 0 s, last busy 12 s
  EXPECT_DOUBLE_EQ(r->leading_idle_s, 0.0);
  EXPECT_DOUBLE_EQ(r->trailing_idle_s, 0.0);
  ASSERT_TRUE(r->typical_period_s);
  EXPECT_DOUBLE_EQ(*r->typical_period_s, 3.0);
  ASSERT_TRUE(r->period_cv);
  EXPECT_NEAR(*r->period_cv, 0.0, 1e-12);
  EXPECT_TRUE(r->regular);
  ASSERT_EQ(r->longest.size(), 4u);
  // All equally long: the stable sort keeps time order.
  EXPECT_EQ(r->longest[0].start_ns, kSec / 2);
  EXPECT_EQ(r->longest[3].start_ns, 9 * kSec + kSec / 2);
  EXPECT_DOUBLE_EQ(r->longest[0].duration_s, 2.0);
}

TEST(IdleGaps, ThreeRegularGapsAreTooFewForAPattern) {
  // Same 3 s period but only 3 gaps (busy at 0, 3, 6, 9 s): two intervals
  // are no typical period (kMinIdleGapsForPeriod), and not "regular".
  const auto t = seconds(10);
  std::vector<double> u;
  for (std::size_t i = 0; i < 10; ++i) u.push_back(i % 3 == 0 ? kBusy : kIdle);
  auto r = find_idle_gaps(t, u);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->count, 3u);
  EXPECT_DOUBLE_EQ(r->total_s, 6.0);
  EXPECT_FALSE(r->typical_period_s);
  EXPECT_FALSE(r->period_cv);
  EXPECT_FALSE(r->regular);
}

TEST(IdleGaps, IrregularGapsAreNotRegular) {
  // 27 samples, 1 s apart, busy except at 2-3, 10, 12 and 25 s.
  // Gaps: 2 s starting 1.5 s; 1 s at 9.5; 1 s at 11.5; 1 s at 24.5 s.
  // Periods 8, 2, 13 s: median 8, mean 23/3, population std
  // sqrt(237/3 - (23/3)^2) = 4.497 -> cv 0.587 (> 0.25: not regular).
  const auto t = seconds(27);
  std::vector<double> u(27, kBusy);
  for (std::size_t i : {2u, 3u, 10u, 12u, 25u}) u[i] = kIdle;
  auto r = find_idle_gaps(t, u);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->count, 4u);
  EXPECT_DOUBLE_EQ(r->total_s, 5.0);
  EXPECT_DOUBLE_EQ(r->longest_s, 2.0);
  ASSERT_TRUE(r->typical_period_s);
  EXPECT_DOUBLE_EQ(*r->typical_period_s, 8.0);
  ASSERT_TRUE(r->period_cv);
  const double mean = 23.0 / 3;
  EXPECT_NEAR(*r->period_cv, std::sqrt(237.0 / 3 - mean * mean) / mean, 1e-9);
  EXPECT_FALSE(r->regular);
  ASSERT_EQ(r->longest.size(), 4u);
  EXPECT_EQ(r->longest[0].start_ns, kSec + kSec / 2);  // the 2 s gap comes first
  EXPECT_DOUBLE_EQ(r->longest[0].duration_s, 2.0);
}

TEST(IdleGaps, LongestListKeepsFiveLongestFirst) {
  // Seven gaps of 1..7 samples (1 s each), separated by one busy sample.
  std::vector<double> u{kBusy};
  for (int len = 1; len <= 7; ++len) {
    for (int k = 0; k < len; ++k) u.push_back(kIdle);
    u.push_back(kBusy);
  }
  const auto t = seconds(u.size());
  auto r = find_idle_gaps(t, u);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->count, 7u);
  EXPECT_DOUBLE_EQ(r->total_s, 28.0);  // 1+2+...+7
  EXPECT_DOUBLE_EQ(r->longest_s, 7.0);
  ASSERT_EQ(r->longest.size(), 5u);
  EXPECT_DOUBLE_EQ(r->longest[0].duration_s, 7.0);
  EXPECT_DOUBLE_EQ(r->longest[4].duration_s, 3.0);
}

TEST(IdleGaps, LeadingAndTrailingIdleAreNotGaps) {
  // Idle 0-2 s (loading), busy 3-6 s, idle 7-9 s (tear-down).
  // Leading: weights 0.5+1+1 = 2.5 s; trailing: 1+1+0.5 = 2.5 s.
  const auto t = seconds(10);
  const std::vector<double> u{kIdle, kIdle, kIdle, kBusy, kBusy, kBusy, kBusy, kIdle, kIdle, kIdle};
  auto r = find_idle_gaps(t, u);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->count, 0u);
  EXPECT_DOUBLE_EQ(r->total_s, 0.0);
  EXPECT_DOUBLE_EQ(r->leading_idle_s, 2.5);
  EXPECT_DOUBLE_EQ(r->trailing_idle_s, 2.5);
  EXPECT_DOUBLE_EQ(r->busy_span_s, 3.0);  // 3 s to 6 s
  EXPECT_FALSE(r->typical_period_s);
  EXPECT_FALSE(r->regular);
  EXPECT_TRUE(r->longest.empty());
}

TEST(IdleGaps, OnlyTheInteriorGapCountsBetweenLeadingAndTrailingIdle) {
  // Idle 0-1, busy 2-3, idle 4, busy 5-6, idle 7-8 s.
  const auto t = seconds(9);
  const std::vector<double> u{kIdle, kIdle, kBusy, kBusy, kIdle, kBusy, kBusy, kIdle, kIdle};
  auto r = find_idle_gaps(t, u);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->count, 1u);
  EXPECT_DOUBLE_EQ(r->total_s, 1.0);
  EXPECT_DOUBLE_EQ(r->leading_idle_s, 1.5);   // 0.5 + 1
  EXPECT_DOUBLE_EQ(r->trailing_idle_s, 1.5);  // 1 + 0.5
  EXPECT_DOUBLE_EQ(r->busy_span_s, 4.0);      // 2 s to 6 s
}

TEST(IdleGaps, NoBusySampleGivesNothing) {
  const auto t = seconds(5);
  const std::vector<double> idle{0, 1, 4.9, 0, 0};
  EXPECT_FALSE(find_idle_gaps(t, idle));
  const std::vector<double> absent(5, kNaN);
  EXPECT_FALSE(find_idle_gaps(t, absent));
  const std::vector<std::int64_t> no_time;
  const std::vector<double> no_value;
  EXPECT_FALSE(find_idle_gaps(no_time, no_value));
}

TEST(IdleGaps, AbsentSamplesAreSkippedNotTreatedAsBusyOrIdle) {
  // busy 0 s, idle 1 s, NaN 2 s, idle 3 s, busy 4 s. Present times 0,1,3,4:
  // gaps 1,2,1 s, median 1 -> cap 1.5 s; weights 0.5, 1.5, 1.5, 0.5.
  // One gap (the NaN does not split it) of 1.5 + 1.5 = 3 s, starting 0.5 s.
  const auto t = seconds(5);
  const std::vector<double> u{kBusy, kIdle, kNaN, kIdle, kBusy};
  auto r = find_idle_gaps(t, u);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->count, 1u);
  EXPECT_DOUBLE_EQ(r->total_s, 3.0);
  ASSERT_EQ(r->longest.size(), 1u);
  EXPECT_EQ(r->longest[0].start_ns, kSec / 2);
  EXPECT_DOUBLE_EQ(r->busy_span_s, 4.0);
}

TEST(IdleGaps, AbsentSamplesAtTheEdgesDoNotCountAsIdle) {
  // NaN 0 s, busy 1-3 s, NaN 4 s: nothing idle anywhere.
  const auto t = seconds(5);
  const std::vector<double> u{kNaN, kBusy, kBusy, kBusy, kNaN};
  auto r = find_idle_gaps(t, u);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->count, 0u);
  EXPECT_DOUBLE_EQ(r->leading_idle_s, 0.0);
  EXPECT_DOUBLE_EQ(r->trailing_idle_s, 0.0);
  EXPECT_DOUBLE_EQ(r->busy_span_s, 2.0);
}

TEST(IdleGaps, ValueExactlyAtTheThresholdIsBusy) {
  // Default threshold 5: "under 5 is idle", so 5 is busy and 4.999 is idle.
  const auto t = seconds(5);
  const std::vector<double> u{50, 5, 50, 4.999, 50};
  auto r = find_idle_gaps(t, u);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->count, 1u);  // only the 4.999 at 3 s
  EXPECT_DOUBLE_EQ(r->total_s, 1.0);
  ASSERT_EQ(r->longest.size(), 1u);
  EXPECT_EQ(r->longest[0].start_ns, 2 * kSec + kSec / 2);

  // A series sitting exactly at 5 ran something: a report, not nullopt.
  const std::vector<double> at_edge(5, 5.0);
  auto edge = find_idle_gaps(t, at_edge);
  ASSERT_TRUE(edge);
  EXPECT_EQ(edge->count, 0u);
  EXPECT_DOUBLE_EQ(edge->busy_span_s, 4.0);
}

TEST(IdleGaps, ThresholdIsConfigurable) {
  // With idle_below_percent = 20, the 10 % samples at 1 and 3 s are idle.
  const auto t = seconds(5);
  const std::vector<double> u{50, 10, 50, 10, 50};
  auto by_default = find_idle_gaps(t, u);
  ASSERT_TRUE(by_default);
  EXPECT_EQ(by_default->count, 0u);
  IdleGapOptions o;
  o.idle_below_percent = 20;
  auto r = find_idle_gaps(t, u, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->count, 2u);
  EXPECT_DOUBLE_EQ(r->total_s, 2.0);
}

}  // namespace
}  // namespace gpuwatch
