// The rollups of a column built a sample at a time (ColumnRollupBuilder, with
// the whole-column cap from MedianGapFinder's passes and exactness from
// RollupExactness) equal rollup_column's over the whole column, bit for bit:
// the recorder's finish builds them that way so that its memory does not grow
// with the run (issue 25).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/rollup.h"
#include "core/time_weights.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kStart = 1'000'000'000'000;
constexpr std::int64_t kTick = 100'000'000;  // 10 Hz
const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Column {
  std::vector<std::int64_t> time_ns;
  std::vector<double> values;
};

std::uint64_t next(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return state >> 11;
}

// The cap found in passes, as the store finds it; `passes` counts them.
std::int64_t cap_in_passes(const std::vector<std::int64_t>& times, int* passes = nullptr) {
  MedianGapFinder finder;
  int n = 0;
  do {
    ++n;
    for (const std::int64_t t : times) finder.add(t);
  } while (!finder.end_pass() && n < 10);
  if (passes) *passes = n;
  return finder.half_gap_cap_ns();
}

std::vector<ColumnRollup> streamed(const Column& c, double scale) {
  std::vector<std::int64_t> present;
  RollupExactness exactness(scale);
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    if (std::isnan(c.values[i])) continue;
    present.push_back(c.time_ns[i]);
    exactness.add(c.values[i]);
  }
  std::vector<ColumnRollup> out;
  ColumnRollupBuilder builder(kStart, cap_in_passes(present), exactness.exact(),
                              [&out](const ColumnRollup& m) { out.push_back(m); });
  for (std::size_t i = 0; i < c.values.size(); ++i) builder.add(c.time_ns[i], c.values[i]);
  builder.finish();
  return out;
}

void expect_same(const Column& c, double scale) {
  const std::vector<ColumnRollup> whole = rollup_column(c.time_ns, c.values, kStart, scale);
  const std::vector<ColumnRollup> stream = streamed(c, scale);
  ASSERT_EQ(whole.size(), stream.size());
  for (std::size_t k = 0; k < whole.size(); ++k) EXPECT_EQ(whole[k], stream[k]) << "minute " << whole[k].minute;
}

// 10 Hz with jitter, NaN runs, a 20-minute pause, a stall of equal times.
Column training_column(std::size_t rows, bool many_values, std::uint64_t seed) {
  Column c;
  std::uint64_t rng = seed;
  std::int64_t t = kStart + 3 * kTick;
  for (std::size_t i = 0; i < rows; ++i) {
    const std::int64_t jitter = static_cast<std::int64_t>(next(rng) % 200'000);
    t += i == rows / 2 ? 20 * 60 * 1'000'000'000LL : (i % 500 == 7 ? 0 : kTick + jitter);
    c.time_ns.push_back(t);
    const std::uint64_t r = next(rng);
    double v = many_values ? std::round((90 + static_cast<double>(r % 560'000) / 1000) * 1000) / 1000
                           : static_cast<double>(r % 101);
    if (i % 97 < 5 || (i > rows / 3 && i < rows / 3 + 900)) v = kNaN;
    c.values.push_back(v);
  }
  return c;
}

TEST(RollupStream, EqualsTheWholeColumnsRollupsWithFewValues) {
  expect_same(training_column(30'000, false, 1), 1);
}

TEST(RollupStream, EqualsTheWholeColumnsRollupsWithManyValues) {
  expect_same(training_column(30'000, true, 2), 1000);
}

TEST(RollupStream, EqualsTheWholeColumnsRollupsAtTheExactValueLimit) {
  for (const std::size_t distinct : {kRollupExactValues, kRollupExactValues + 1}) {
    Column c;
    for (std::size_t i = 0; i < 3 * distinct; ++i) {
      c.time_ns.push_back(kStart + static_cast<std::int64_t>(i) * kTick);
      c.values.push_back(static_cast<double>(i % distinct));
    }
    expect_same(c, 1);
    EXPECT_EQ(rollup_column(c.time_ns, c.values, kStart, 1).front().exact, distinct == kRollupExactValues);
  }
}

TEST(RollupStream, EqualsTheWholeColumnsRollupsForValuesNotInFixedPoint) {
  Column c = training_column(5'000, false, 3);
  c.values[100] = 0.123456789;  // not a whole number of 1/scale: bucketed
  expect_same(c, 100);
}

TEST(RollupStream, EqualsTheWholeColumnsRollupsForTinyColumns) {
  expect_same(Column{}, 1);
  expect_same(Column{{kStart}, {kNaN}}, 1);
  expect_same(Column{{kStart + 5}, {42}}, 1);
  expect_same(Column{{kStart, kStart}, {1, 2}}, 1);
  expect_same(Column{{kStart, kStart + kTick, kStart + 90 * 1'000'000'000LL}, {1, kNaN, 3}}, 1);
  // Times before the start, and times that go back.
  expect_same(Column{{kStart - 70 * 1'000'000'000LL, kStart - kTick, kStart + kTick, kStart}, {1, 2, 3, 4}}, 1);
}

TEST(MedianGapFinder, FindsTheMedianOfAnyGaps) {
  std::uint64_t rng = 9;
  const std::vector<std::vector<std::int64_t>> gap_sets = {
      {}, {5}, {0, 0, 0}, {-3, -3, 7}, {-1'000'000'000'000, -5, -7, 1},
      {std::int64_t{1} << 62, 1, std::int64_t{1} << 61}, {2047, 2048, 2049, 4095, 4096}};
  for (const auto& gaps : gap_sets) {
    std::vector<std::int64_t> t{0};
    for (const std::int64_t g : gaps) t.push_back(t.back() + g);
    EXPECT_EQ(cap_in_passes(t), default_half_gap_cap_ns(t));
  }
  for (int round = 0; round < 50; ++round) {
    std::vector<std::int64_t> t{static_cast<std::int64_t>(next(rng) % 1000)};
    const std::uint64_t scale = std::uint64_t{1} << (next(rng) % 40);
    const std::size_t n = 1 + next(rng) % 3000;
    for (std::size_t i = 0; i < n; ++i) {
      const auto back = round % 7 == 0 ? static_cast<std::int64_t>(scale / 3) : 0;  // some gaps below zero
      const auto g = static_cast<std::int64_t>(next(rng) % scale) - back;
      t.push_back(t.back() + g);
    }
    EXPECT_EQ(cap_in_passes(t), default_half_gap_cap_ns(t)) << "round " << round;
  }
}

TEST(MedianGapFinder, NeedsTwoPassesForRegularSampling) {
  std::uint64_t rng = 4;
  std::vector<std::int64_t> t{kStart};
  for (int i = 0; i < 100'000; ++i) t.push_back(t.back() + kTick + static_cast<std::int64_t>(next(rng) % 200'000));
  int passes = 0;
  EXPECT_EQ(cap_in_passes(t, &passes), default_half_gap_cap_ns(t));
  EXPECT_EQ(passes, 2);
}

// merge_rollups over 600 minutes a block at a time (RollupAccumulator, as
// `report` merges a two-week column's minutes as they are decoded) gives
// merge_rollups' moments bit for bit and its histogram to rounding.
TEST(RollupAccumulator, EqualsMergeRollupsOfTheWholeList) {
  Column c;
  std::uint64_t rng = 5;
  for (std::int64_t i = 0; i < 600 * 60; ++i) {  // 600 minutes at 1 Hz
    c.time_ns.push_back(kStart + i * 1'000'000'000 + static_cast<std::int64_t>(next(rng) % 1'000'000));
    c.values.push_back(i % 5000 == 7 ? kNaN : 600 + static_cast<double>(next(rng) % 100'000) / 1000);
  }
  const std::vector<ColumnRollup> minutes = rollup_column(c.time_ns, c.values, kStart, 1000);
  ASSERT_GE(minutes.size(), 600u);
  RollupAccumulator accumulator;
  EXPECT_TRUE(accumulator.empty());
  for (const ColumnRollup& m : minutes) accumulator.add(m);
  const ColumnRollup whole = merge_rollups(minutes);
  const ColumnRollup blocks = accumulator.result();
  EXPECT_EQ(blocks.count, whole.count);
  EXPECT_EQ(blocks.weight_ns, whole.weight_ns);
  EXPECT_EQ(blocks.mean, whole.mean);
  EXPECT_EQ(blocks.m2, whole.m2);
  EXPECT_EQ(blocks.min, whole.min);
  EXPECT_EQ(blocks.max, whole.max);
  EXPECT_EQ(blocks.exact, whole.exact);
  ASSERT_EQ(blocks.histogram.size(), whole.histogram.size());
  for (std::size_t i = 0; i < whole.histogram.size(); ++i) {
    EXPECT_EQ(blocks.histogram[i].value, whole.histogram[i].value);
    EXPECT_NEAR(blocks.histogram[i].weight_ns, whole.histogram[i].weight_ns, 1e-9 * whole.histogram[i].weight_ns);
  }
}

}  // namespace
}  // namespace gpuwatch
