// Statistics from per-minute rollups (core/rollup.h) against the same
// statistics from the samples: what `report` promises when it reads rollups.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "analysis/rollup_stats.h"
#include "analysis/stats.h"
#include "core/metrics.h"
#include "core/rollup.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kStart = 7 * kSec;

struct Column {
  std::vector<std::int64_t> time_ns;
  std::vector<double> values;
};

// ~5 minutes at 10 Hz with jitter, identical timestamps, a 40 s stall (capped
// by the gap rule), and absent values; value(i) gives sample i.
template <typename Value>
Column irregular(Value value) {
  Column c;
  std::uint64_t rng = 7;
  std::int64_t t = kStart - 3 * kSec;  // a little before the run's start: minute -1
  for (int i = 0; i < 3000; ++i) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto jitter = static_cast<std::int64_t>((rng >> 40) % 20'000'000);
    t += i == 1500 ? 40 * kSec : (i % 700 == 5 ? 0 : 100'000'000 + jitter - 10'000'000);
    c.time_ns.push_back(t);
    c.values.push_back(i % 97 == 3 ? kNaN : value(i, rng));
  }
  return c;
}

void expect_same_moments(const Summary& raw, const Summary& rolled) {
  EXPECT_EQ(rolled.count, raw.count);
  EXPECT_DOUBLE_EQ(rolled.span_s, raw.span_s);
  EXPECT_EQ(rolled.min, raw.min);
  EXPECT_EQ(rolled.max, raw.max);
  EXPECT_NEAR(rolled.mean, raw.mean, 1e-12 * std::max(1.0, std::abs(raw.mean)));
  EXPECT_NEAR(rolled.std, raw.std, 1e-9 * std::max(1.0, std::abs(raw.mean)));
}

TEST(RollupStats, FewDistinctValuesGiveTheSamplesStatisticsExactly) {
  // Utilization-like: whole percents, busy with stalls.
  const Column c = irregular([](int i, std::uint64_t rng) {
    return i % 30 < 3 ? static_cast<double>(rng >> 62) : 90.0 + static_cast<double>((rng >> 33) % 11);
  });
  const auto raw = summarize(c.time_ns, c.values);
  const std::vector<ColumnRollup> minutes = rollup_column(c.time_ns, c.values, kStart, 100);
  ASSERT_GE(minutes.size(), 5u);
  EXPECT_EQ(minutes[0].minute, -1);
  for (const ColumnRollup& m : minutes) EXPECT_TRUE(m.exact);
  const auto rolled = summarize(minutes);
  ASSERT_TRUE(raw && rolled);
  expect_same_moments(*raw, *rolled);
  EXPECT_EQ(rolled->p50, raw->p50);
  EXPECT_EQ(rolled->p95, raw->p95);
}

TEST(RollupStats, ManyDistinctValuesKeepPercentilesWithinTheBucketError) {
  // Power-like: milliwatts, thousands of distinct values.
  const Column c = irregular([](int i, std::uint64_t rng) {
    const double base = i % 30 < 3 ? 95.0 : 610.0;
    return std::round((base + static_cast<double>(rng >> 11) / 9007199254740992.0 * 40) * 1000) / 1000;
  });
  const auto raw = summarize(c.time_ns, c.values);
  const std::vector<ColumnRollup> minutes = rollup_column(c.time_ns, c.values, kStart, 1000);
  ASSERT_FALSE(minutes.empty());
  EXPECT_FALSE(minutes[0].exact);
  const auto rolled = summarize(minutes);
  ASSERT_TRUE(raw && rolled);
  expect_same_moments(*raw, *rolled);
  EXPECT_NEAR(rolled->p50, raw->p50, kRollupRelativeError * raw->p50);
  EXPECT_NEAR(rolled->p95, raw->p95, kRollupRelativeError * raw->p95);
  EXPECT_LE(kRollupRelativeError, 0.0025);
}

TEST(RollupStats, AnySpanOfMinutesMergesLikeItsSamples) {
  // Minutes 1..3 of the rollups summarize the samples of those minutes
  // alone, weighted as in the whole run.
  const Column c = irregular([](int i, std::uint64_t) { return 1e9 * 61 + static_cast<double>(i % 50) * 1048576; });
  const std::vector<ColumnRollup> minutes = rollup_column(c.time_ns, c.values, kStart, 1);
  const auto merged = merge_rollups(std::span<const ColumnRollup>(minutes).subspan(2, 3));
  EXPECT_EQ(merged.minute, 1);
  std::size_t count = 0;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < c.time_ns.size(); ++i) {
    const std::int64_t minute = (c.time_ns[i] - kStart) / kRollupMinuteNs;
    if (c.time_ns[i] < kStart || minute < 1 || minute > 3 || std::isnan(c.values[i])) continue;
    ++count;
    lo = std::min(lo, c.values[i]);
    hi = std::max(hi, c.values[i]);
  }
  EXPECT_EQ(merged.count, count);
  EXPECT_EQ(merged.min, lo);
  EXPECT_EQ(merged.max, hi);
  // A large mean and a small spread: the merged deviation stays accurate.
  EXPECT_GT(merged.m2, 0);
  // Without the histogram, the same moments (compare's minutes use only these).
  const auto moments = merge_rollup_moments(std::span<const ColumnRollup>(minutes).subspan(2, 3));
  EXPECT_TRUE(moments.histogram.empty());
  EXPECT_EQ(moments.count, merged.count);
  EXPECT_EQ(moments.weight_ns, merged.weight_ns);
  EXPECT_EQ(moments.mean, merged.mean);
  EXPECT_EQ(moments.m2, merged.m2);
  EXPECT_EQ(moments.min, merged.min);
  EXPECT_EQ(moments.max, merged.max);
  EXPECT_EQ(moments.exact, merged.exact);
  // The histogram's weights add up to the minutes' weight, one bin per value, in order.
  double weight_ns = 0;
  for (std::size_t i = 0; i < merged.histogram.size(); ++i) {
    weight_ns += merged.histogram[i].weight_ns;
    if (i > 0) EXPECT_LT(merged.histogram[i - 1].value, merged.histogram[i].value);
  }
  EXPECT_EQ(weight_ns, merged.weight_ns);
}

TEST(RollupStats, MinutesWithoutBinsHaveTheSameMoments) {
  const Column c = irregular([](int i, std::uint64_t) { return 40.0 + static_cast<double>(i % 7) * 0.37; });
  const auto with_bins = rollup_column(c.time_ns, c.values, kStart, 100);
  const auto without = rollup_column(c.time_ns, c.values, kStart, 100, RollupBins::Skip);
  ASSERT_EQ(without.size(), with_bins.size());
  ASSERT_FALSE(with_bins.empty());
  for (std::size_t i = 0; i < without.size(); ++i) {
    EXPECT_TRUE(without[i].histogram.empty());
    EXPECT_FALSE(with_bins[i].histogram.empty());
    EXPECT_EQ(without[i].minute, with_bins[i].minute);
    EXPECT_EQ(without[i].count, with_bins[i].count);
    EXPECT_EQ(without[i].weight_ns, with_bins[i].weight_ns);
    EXPECT_EQ(without[i].mean, with_bins[i].mean);
    EXPECT_EQ(without[i].m2, with_bins[i].m2);
    EXPECT_EQ(without[i].min, with_bins[i].min);
    EXPECT_EQ(without[i].max, with_bins[i].max);
  }
}

TEST(RollupStats, MixedExactAndBucketedMinutesFallBackToBuckets) {
  ColumnRollup exact;
  exact.count = 2;
  exact.weight_ns = 2;
  exact.mean = 150;
  exact.m2 = 5000;
  exact.min = 100;
  exact.max = 200;
  exact.histogram = {{100, 1}, {200, 1}};
  ColumnRollup bucketed = exact;
  bucketed.exact = false;
  bucketed.minute = 1;
  bucketed.histogram = {{rollup_bucket_value(rollup_bucket_key(100)), 1}, {rollup_bucket_value(rollup_bucket_key(200)), 1}};
  const std::vector<ColumnRollup> both{exact, bucketed};
  const ColumnRollup m = merge_rollups(both);
  EXPECT_FALSE(m.exact);
  ASSERT_EQ(m.histogram.size(), 2u);
  EXPECT_EQ(m.histogram[0].weight_ns, 2);
  EXPECT_NEAR(m.histogram[0].value, 100, 100 * kRollupRelativeError);
  EXPECT_EQ(m.count, 4u);
  EXPECT_DOUBLE_EQ(m.mean, 150);
  EXPECT_DOUBLE_EQ(m.m2, 10000);
}

TEST(RollupStats, BucketKeysKeepOrderAndSign) {
  const std::vector<double> values{-1e12, -3.5, -1e-9, 0, 1e-300, 0.0004, 1, 1.006, 700, 8.5e10, 1e300};
  for (std::size_t i = 1; i < values.size(); ++i) {
    EXPECT_LT(rollup_bucket_key(values[i - 1]), rollup_bucket_key(values[i])) << values[i];
  }
  for (const double v : values) {
    const double rep = rollup_bucket_value(rollup_bucket_key(v));
    EXPECT_NEAR(rep, v, std::abs(v) * kRollupRelativeError * 1.0001) << v;
    EXPECT_EQ(rollup_bucket_key(rep), rollup_bucket_key(v)) << v;
  }
}

TEST(RollupStats, ThrottlingFromTheReasonsHistogramIsTheSamples) {
  // Clock-event reasons: idle, power cap, thermal and both, absent at times.
  const Column c = irregular([](int i, std::uint64_t) {
    constexpr double kMasks[] = {0, 1, 4, 4, 4 | 0x20, 0x40, 4};
    return kMasks[static_cast<std::size_t>(i / 50 % 7)];
  });
  const ThrottleReport raw = throttle_time(c.time_ns, c.values);
  const auto rolled = throttle_time(rollup_column(c.time_ns, c.values, kStart, 1));
  ASSERT_TRUE(rolled);
  EXPECT_NEAR(rolled->sampled_s, raw.sampled_s, 1e-9 * raw.sampled_s);
  EXPECT_NEAR(rolled->throttled_percent, raw.throttled_percent, 1e-9);
  EXPECT_NEAR(rolled->power_percent, raw.power_percent, 1e-9);
  EXPECT_NEAR(rolled->thermal_percent, raw.thermal_percent, 1e-9);
  ASSERT_EQ(rolled->by_reason.size(), raw.by_reason.size());
  for (std::size_t k = 0; k < raw.by_reason.size(); ++k) {
    EXPECT_EQ(rolled->by_reason[k].reason.bit, raw.by_reason[k].reason.bit);
    EXPECT_NEAR(rolled->by_reason[k].seconds, raw.by_reason[k].seconds, 1e-9 * raw.sampled_s);
  }
  EXPECT_GT(raw.power_percent, 0);
  // A bucketed column holds no masks: the samples must say.
  ColumnRollup bucketed;
  bucketed.count = 1;
  bucketed.weight_ns = 1e9;
  bucketed.mean = bucketed.min = bucketed.max = 4;
  bucketed.exact = false;
  bucketed.histogram = {{rollup_bucket_value(rollup_bucket_key(4)), 1e9}};
  EXPECT_FALSE(throttle_time(std::span<const ColumnRollup>(&bucketed, 1)));
}

TEST(RollupStats, ALoneSampleAndNoSampleAreAsSummarizeHasThem) {
  const std::vector<std::int64_t> t{kStart, kStart + kSec};
  const std::vector<double> one{kNaN, 42};
  const auto raw = summarize(t, one);
  const auto rolled = summarize(rollup_column(t, one, kStart, 1));
  ASSERT_TRUE(raw && rolled);
  EXPECT_EQ(rolled->count, 1u);
  EXPECT_EQ(rolled->span_s, raw->span_s);
  EXPECT_EQ(rolled->p50, 42);
  const std::vector<double> none{kNaN, kNaN};
  EXPECT_TRUE(rollup_column(t, none, kStart, 1).empty());
  EXPECT_FALSE(summarize(std::span<const ColumnRollup>()));
}

}  // namespace
}  // namespace gpuwatch
