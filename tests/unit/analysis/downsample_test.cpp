#include "analysis/downsample.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.h"

namespace gpuwatch {
namespace {

std::vector<double> iota_times(std::size_t n, double step = 1) {
  std::vector<double> t(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<double>(i) * step;
  return t;
}

std::vector<double> values_of(const std::vector<LinePoint>& points, bool with_gaps = false) {
  std::vector<double> out;
  for (const LinePoint& p : points) {
    if (with_gaps || !std::isnan(p.v)) out.push_back(p.v);
  }
  return out;
}

std::vector<double> times_of(const std::vector<LinePoint>& points) {
  std::vector<double> out;
  for (const LinePoint& p : points) {
    if (!std::isnan(p.v)) out.push_back(p.t);
  }
  return out;
}

std::size_t drawn_count(const std::vector<LinePoint>& points) { return values_of(points).size(); }

// No line segment of the output may cross a NaN of the input, markers only
// stand between two points, and time never runs backwards.
void expect_gaps_kept(const std::vector<double>& t, const std::vector<double>& v,
                      const std::vector<LinePoint>& out) {
  ASSERT_FALSE(out.empty());
  std::vector<std::size_t> nan_count(t.size() + 1, 0);  // NaNs before index i (t is sorted)
  for (std::size_t i = 0; i < t.size(); ++i) nan_count[i + 1] = nan_count[i] + (std::isnan(v[i]) ? 1 : 0);
  EXPECT_FALSE(std::isnan(out.front().v));
  EXPECT_FALSE(std::isnan(out.back().v));
  for (std::size_t k = 1; k < out.size(); ++k) {
    EXPECT_LE(out[k - 1].t, out[k].t) << "at " << k;
    if (std::isnan(out[k].v)) {
      EXPECT_FALSE(std::isnan(out[k - 1].v)) << "two markers in a row at " << k;
      continue;
    }
    if (std::isnan(out[k - 1].v)) continue;
    // A segment from out[k-1] to out[k]: no NaN sample strictly between.
    const auto from = std::upper_bound(t.begin(), t.end(), out[k - 1].t) - t.begin();
    const auto to = std::lower_bound(t.begin(), t.end(), out[k].t) - t.begin();
    if (from < to && nan_count[static_cast<std::size_t>(to)] > nan_count[static_cast<std::size_t>(from)]) {
      ADD_FAILURE() << "segment " << out[k - 1].t << " -> " << out[k].t << " bridges a gap";
      return;
    }
  }
}

TEST(MinMaxPerBucket, KeepsEachBucketsExtremesAndTheEndpointsInTimeOrder) {
  const std::vector<double> t = iota_times(8);
  const std::vector<double> v{1, 5, 2, 0, 3, 3, 9, 4};
  const auto out = min_max_per_bucket(t, v, {0, 8, 2});
  // Bucket [0,4): first (1), max 5, min 0. Bucket [4,8): min 3 (its first), max 9, last 4.
  EXPECT_EQ(times_of(out), (std::vector<double>{0, 1, 3, 4, 6, 7}));
  EXPECT_EQ(values_of(out), (std::vector<double>{1, 5, 0, 3, 9, 4}));
}

TEST(MinMaxPerBucket, AGapInsideOneBucketStillBreaksTheLine) {
  const std::vector<double> t = iota_times(5);
  const std::vector<double> v{1, 5, kNaN, 0, 2};
  const auto out = min_max_per_bucket(t, v, {0, 5, 1});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[1].v, 5);
  EXPECT_TRUE(std::isnan(out[2].v));
  EXPECT_EQ(out[2].t, 2);  // the marker sits at the missing sample
  EXPECT_EQ(out[3].v, 0);
  expect_gaps_kept(t, v, out);
}

TEST(MinMaxPerBucket, LeadingAndTrailingGapsGiveNoMarkers) {
  const std::vector<double> t = iota_times(6);
  const std::vector<double> v{kNaN, kNaN, 3, 4, kNaN, kNaN};
  const auto out = min_max_per_bucket(t, v, {0, 6, 6});
  EXPECT_EQ(values_of(out, true), (std::vector<double>{3, 4}));
}

TEST(MinMaxPerBucket, ASingleSpikeSurvivesAndTheCountIsBounded) {
  std::vector<double> t = iota_times(100'000, 0.1);
  std::vector<double> v(t.size(), 20.0);
  v[54'321] = 100;
  v[77'777] = -3;
  const auto out = min_max_per_bucket(t, v, {0, t.back(), 500});
  const auto values = values_of(out);
  EXPECT_LE(values.size(), 2 * 500u + 2);
  EXPECT_EQ(std::count(values.begin(), values.end(), 100.0), 1);
  EXPECT_EQ(std::count(values.begin(), values.end(), -3.0), 1);
  EXPECT_EQ(out.front().t, 0);
  EXPECT_EQ(out.back().t, t.back());
}

TEST(MinMaxPerBucket, SamplesOutsideTheGridLandInTheEdgeBuckets) {
  const std::vector<double> t{-5, 1, 2, 50};
  const std::vector<double> v{7, 1, 2, 8};
  // Bucket [0,5) gets -5 (first, max) and 1 (min); 2 is neither.
  const auto out = min_max_per_bucket(t, v, {0, 10, 2});
  EXPECT_EQ(values_of(out), (std::vector<double>{7, 1, 8}));
}

TEST(MinMaxPerBucket, EmptyAllNanAndZeroBucketsGiveNothing) {
  const std::vector<double> t{0, 1};
  EXPECT_TRUE(min_max_per_bucket({}, {}, {0, 1, 10}).empty());
  EXPECT_TRUE(min_max_per_bucket(t, std::vector<double>{kNaN, kNaN}, {0, 1, 10}).empty());
  EXPECT_TRUE(min_max_per_bucket(t, std::vector<double>{1, 2}, {0, 1, 0}).empty());
  // A grid of no width puts everything in one bucket rather than failing.
  EXPECT_EQ(drawn_count(min_max_per_bucket(t, std::vector<double>{1, 2}, {3, 3, 10})), 2u);
}

TEST(Lttb, PicksTheSampleWithTheLargestTriangle) {
  const std::vector<double> t = iota_times(5);
  const auto out = lttb(t, std::vector<double>{0, 0, 10, 0, 0}, 3);
  EXPECT_EQ(times_of(out), (std::vector<double>{0, 2, 4}));

  // Two buckets {1,2} and {3,4}. Bucket 1 against (0,0) and the next
  // bucket's mean (3.5,4): twice the areas are 0.5 and 2.5, so t=2. Bucket 2
  // against (2,3) and the last point (5,0): 18 and 3, so t=3.
  const auto out2 = lttb(iota_times(6), std::vector<double>{0, 1, 3, 8, 0, 0}, 4);
  EXPECT_EQ(times_of(out2), (std::vector<double>{0, 2, 3, 5}));
  EXPECT_EQ(values_of(out2), (std::vector<double>{0, 3, 8, 0}));
}

TEST(Lttb, ASeriesThatFitsIsReturnedWhole) {
  const std::vector<double> t = iota_times(4);
  const std::vector<double> v{1, kNaN, 3, 4};
  const auto out = lttb(t, v, 10);
  EXPECT_EQ(out.size(), 4u);  // three points and the gap between the first two
  EXPECT_TRUE(std::isnan(out[1].v));
}

TEST(Lttb, ASingleSpikeSurvivesAndTheCountIsBounded) {
  std::vector<double> t = iota_times(100'000, 0.1);
  std::vector<double> v(t.size(), 20.0);
  v[54'321] = 100;
  const auto out = lttb(t, v, 300);
  const auto values = values_of(out);
  EXPECT_LE(values.size(), 300u);
  EXPECT_EQ(std::count(values.begin(), values.end(), 100.0), 1);
  EXPECT_EQ(out.front().t, 0);
  EXPECT_EQ(out.back().t, t.back());
  // Fewer than three points cannot keep both ends and anything between.
  EXPECT_EQ(drawn_count(lttb(t, v, 1)), 3u);
}

TEST(Downsampling, RandomSeriesWithGapsKeepEndsBoundsAndGaps) {
  std::mt19937 rng(7);
  std::normal_distribution<double> step(0, 1);
  std::uniform_int_distribution<int> gap_start(0, 999);
  for (int round = 0; round < 20; ++round) {
    const std::size_t n = 5'000 + static_cast<std::size_t>(round) * 701;
    std::vector<double> t = iota_times(n, 0.05);
    std::vector<double> v(n);
    double x = 0;
    for (double& value : v) value = (x += step(rng));
    // Gaps of every width: one sample, a few, many; and a NaN first sample.
    for (int g = 0; g < 12; ++g) {
      const std::size_t at = static_cast<std::size_t>(gap_start(rng)) * n / 1000;
      const std::size_t len = std::size_t{1} << (g % 8);
      for (std::size_t i = at; i < std::min(n - 1, at + len); ++i) v[i] = kNaN;
    }
    if (round % 2 == 0) v[0] = kNaN;
    std::size_t first = 0;
    while (std::isnan(v[first])) ++first;

    const std::size_t buckets = 50 + static_cast<std::size_t>(round) * 37;
    const auto mm = min_max_per_bucket(t, v, {t.front(), t.back(), buckets});
    EXPECT_LE(drawn_count(mm), 2 * buckets + 2);
    EXPECT_EQ(mm.front().t, t[first]);
    EXPECT_EQ(mm.back().t, t.back());
    expect_gaps_kept(t, v, mm);

    const auto lt = lttb(t, v, buckets);
    EXPECT_LE(drawn_count(lt), buckets);
    EXPECT_EQ(lt.front().t, t[first]);
    EXPECT_EQ(lt.back().t, t.back());
    expect_gaps_kept(t, v, lt);
  }
}

TEST(GapMarking, TicksWithoutAReadAreNotGapsButAStoppedSamplerIs) {
  // 10 Hz ticks, a slow metric read every tenth tick, then 12 s with no sample.
  std::vector<double> t;
  std::vector<double> v;
  for (int i = 0; i < 100; ++i) {
    t.push_back(i * 0.1 + (i >= 50 ? 12.0 : 0.0));
    v.push_back(i % 10 == 0 ? 40.0 + i : kNaN);
  }
  const double interval = median_valid_interval(t, v);
  EXPECT_NEAR(interval, 1.0, 1e-9);
  std::vector<double> out_t{99};  // reused buffers are cleared
  std::vector<double> out_v{99};
  keep_valid_marking_gaps(t, v, 3 * interval, out_t, out_v);
  ASSERT_EQ(out_v.size(), 11u);  // ten reads and one gap
  EXPECT_EQ(out_v[0], 40);
  EXPECT_TRUE(std::isnan(out_v[5]));
  EXPECT_NEAR(out_t[5], (4.0 + 17.0) / 2, 1e-9);  // between the reads at 4 s and 17 s
  EXPECT_EQ(out_v[6], 90);

  keep_valid_marking_gaps(t, v, 0, out_t, out_v);
  EXPECT_EQ(out_v.size(), 10u);  // no limit: nothing marked
  EXPECT_EQ(median_valid_interval(t, std::vector<double>(t.size(), kNaN)), 0);
}

}  // namespace
}  // namespace gpuwatch
