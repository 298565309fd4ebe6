#include "analysis/aggregate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
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


// The definition, the slow way: at each tick (the earliest time not yet in
// one, and every time up to `tolerance` after it), each series' latest
// finite value read up to then, if fresh enough.
void reference_mean(const std::vector<TimedColumn>& series, std::int64_t tolerance, std::int64_t max_age,
                    std::vector<std::int64_t>& out_t, std::vector<double>& out_v) {
  std::vector<std::int64_t> all;
  for (const TimedColumn& s : series) all.insert(all.end(), s.time_ns.begin(), s.time_ns.end());
  std::sort(all.begin(), all.end());
  out_t.clear();
  out_v.clear();
  for (std::size_t i = 0; i < all.size();) {
    const std::int64_t tick = all[i];
    while (i < all.size() && all[i] <= tick + tolerance) ++i;
    double sum = 0;
    int count = 0;
    for (const TimedColumn& s : series) {
      std::optional<std::size_t> latest;
      for (std::size_t k = 0; k < s.time_ns.size() && s.time_ns[k] <= tick + tolerance; ++k) {
        if (std::isfinite(s.values[k])) latest = k;
      }
      if (latest && tick - s.time_ns[*latest] <= max_age) {
        sum += s.values[*latest];
        ++count;
      }
    }
    out_t.push_back(tick);
    out_v.push_back(count > 0 ? sum / count : kNaN);
  }
}

void expect_same(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))) << i << ": " << a[i] << " vs " << b[i];
  }
}

TEST(MeanAcross, OneSeriesAtATimeOnSharedTicksIsExactAtOnce) {
  // The recorder's case: every GPU on the same ticks, one lost early, one
  // whose slow metric is read every tenth tick.
  std::vector<std::vector<std::int64_t>> times(3);
  std::vector<std::vector<double>> values(3);
  for (int i = 0; i < 200; ++i) {
    for (std::size_t s = 0; s < 3; ++s) {
      if (s == 0 && i >= 120) continue;  // lost
      times[s].push_back(i * 100 * kMs);
      values[s].push_back(s == 2 ? (i % 10 == 0 ? i : kNaN) : 10.0 * static_cast<double>(s) + i % 7);
    }
  }
  const std::vector<TimedColumn> columns{{times[0], values[0]}, {times[1], values[1]}, {times[2], values[2]}};
  MeanAcross mean(50 * kMs, 300 * kMs);
  for (const TimedColumn& c : columns) EXPECT_TRUE(mean.add(c));
  std::vector<std::int64_t> t;
  std::vector<double> v;
  mean.result(t, v);
  std::vector<std::int64_t> want_t;
  std::vector<double> want_v;
  reference_mean(columns, 50 * kMs, 300 * kMs, want_t, want_v);
  EXPECT_EQ(t, want_t);
  expect_same(v, want_v);

  // The lost GPU last: its ticks are a prefix of the others', still exact.
  MeanAcross reversed(50 * kMs, 300 * kMs);
  for (std::size_t s = 3; s-- > 0;) EXPECT_TRUE(reversed.add(columns[s]));
  // ...and a GPU that joined late, first: the others add ticks before its own.
  MeanAcross late(50 * kMs, 300 * kMs);
  const std::vector<std::int64_t> late_t(times[1].begin() + 150, times[1].end());
  const std::vector<double> late_v(values[1].begin() + 150, values[1].end());
  EXPECT_TRUE(late.add({late_t, late_v}));
  EXPECT_TRUE(late.add(columns[0]));
  EXPECT_TRUE(late.complete());
  late.result(t, v);
  reference_mean({{late_t, late_v}, columns[0]}, 50 * kMs, 300 * kMs, want_t, want_v);
  EXPECT_EQ(t, want_t);
  expect_same(v, want_v);
}

TEST(MeanAcross, TicksThatMoveNeedASecondRoundAndGetIt) {
  // GPU 1 is read half-way between GPU 0's reads: its times make ticks
  // between GPU 0's, on which GPU 0 was not counted.
  const std::vector<std::int64_t> t0{0, 100 * kMs, 200 * kMs, 300 * kMs};
  const std::vector<std::int64_t> t1{50 * kMs, 150 * kMs, 250 * kMs};
  const std::vector<double> v0{10, 20, 30, 40};
  const std::vector<double> v1{1, 2, 3};
  MeanAcross mean(20 * kMs, 300 * kMs);
  EXPECT_TRUE(mean.add({t0, v0}));
  EXPECT_FALSE(mean.add({t1, v1}));
  EXPECT_FALSE(mean.complete());
  mean.restart();
  EXPECT_TRUE(mean.add({t0, v0}));
  EXPECT_TRUE(mean.add({t1, v1}));
  std::vector<std::int64_t> t;
  std::vector<double> v;
  mean.result(t, v);
  EXPECT_EQ(t, (std::vector<std::int64_t>{0, 50 * kMs, 100 * kMs, 150 * kMs, 200 * kMs, 250 * kMs, 300 * kMs}));
  EXPECT_EQ(v, (std::vector<double>{10, 5.5, 10.5, 11, 16, 16.5, 21.5}));
}

TEST(MeanAcross, AgreesWithItsDefinitionOnRandomSeries) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 200; ++round) {
    const auto k = static_cast<std::size_t>(1 + rng() % 4);
    std::vector<std::vector<std::int64_t>> times(k);
    std::vector<std::vector<double>> values(k);
    std::vector<TimedColumn> columns;
    for (std::size_t s = 0; s < k; ++s) {
      std::int64_t now = static_cast<std::int64_t>(rng() % 500) * kMs;
      const auto n = rng() % 40;
      for (std::size_t i = 0; i < n; ++i) {
        now += static_cast<std::int64_t>(rng() % (round % 2 == 0 ? 3 : 200)) * kMs;  // bursts, or spread
        times[s].push_back(now);
        values[s].push_back(rng() % 5 == 0 ? kNaN : static_cast<double>(rng() % 1000) / 8);
      }
    }
    for (std::size_t s = 0; s < k; ++s) columns.push_back({times[s], values[s]});
    std::vector<std::int64_t> t;
    std::vector<double> v;
    mean_across(columns, 25 * kMs, 150 * kMs, t, v);
    std::vector<std::int64_t> want_t;
    std::vector<double> want_v;
    reference_mean(columns, 25 * kMs, 150 * kMs, want_t, want_v);
    EXPECT_EQ(t, want_t) << "round " << round;
    expect_same(v, want_v);
  }
}

}  // namespace
}  // namespace gpuwatch
