// compare over per-minute rollups against compare over every sample, on runs
// where both can be computed: the same means, intervals of about the same
// width (docs/compare.md, "Long runs: minutes instead of samples").
#include "analysis/compare_minutes.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/rollup.h"
#include "run_data_util.h"

namespace gpuwatch {
namespace {

using namespace run_data_test;

constexpr std::size_t kGpus = 4;
constexpr std::size_t kSeconds = 6 * 3600;  // six hours at 1 Hz: 360 minutes

// Four GPUs whose utilization and power wander slowly (AR(1), about 100 s of
// memory) around a run's own level, plus a per-GPU offset.
RunData wandering_run(const std::string& name, double util_mean, double power_mean, std::uint64_t seed) {
  RunData d = make_run(name, name + "00000000");
  for (std::size_t g = 0; g < kGpus; ++g) {
    const double offset = static_cast<double>(g);
    set_device(d, static_cast<int>(g), DeviceMetric::GpuUtilPercent,
               ar1(kSeconds, util_mean + offset, 0.99, 1.5, seed + g));
    set_device(d, static_cast<int>(g), DeviceMetric::PowerWatts,
               ar1(kSeconds, power_mean + 3 * offset, 0.995, 4.0, seed + 100 + g));
  }
  return d;
}

// What the store's rollups and runs/run_minutes.cpp make of a run in memory.
RunMinutes minutes_of(const RunData& d) {
  RunMinutes out;
  out.end_s = run_end_elapsed_s(d);
  for (std::size_t m = 0; m < kRunMetricCount; ++m) {
    const auto metric = static_cast<RunMetric>(m);
    MinuteFold fold(metric);
    const RunMetricSource source = source_of(metric);
    if (source.fold != RunMetricFold::Host) {
      for (const DeviceSeries& s : d.devices) {
        fold.add_device(rollup_column(s.mono_ns, s.values[source.column], d.run.start_mono_ns,
                                      kDeviceMetrics[source.column].scale));
      }
    }
    out.metrics.push_back(fold.minutes());
  }
  return out;
}

const MetricComparison& find(const Comparison& c, RunMetric m) {
  for (const MetricComparison& mc : c.metrics) {
    if (mc.metric == m) return mc;
  }
  throw std::runtime_error("metric not compared");
}

struct Both {
  Comparison samples;
  Comparison minutes;
};

Both compare_both(const std::vector<RunData>& runs, const CompareOptions& options) {
  std::vector<RunMinutes> minutes;
  for (const RunData& r : runs) minutes.push_back(minutes_of(r));
  return {compare_runs(runs, options), compare_minutes(runs, minutes, options)};
}

void expect_same_answer(const Both& both, RunMetric metric, double mean_tolerance) {
  const MetricComparison& s = find(both.samples, metric);
  const MetricComparison& m = find(both.minutes, metric);
  for (std::size_t r = 0; r < s.runs.size(); ++r) {
    EXPECT_NEAR(m.runs[r]->summary.mean, s.runs[r]->summary.mean, mean_tolerance * std::abs(s.runs[r]->summary.mean));
  }
  const Difference& ds = *s.differences[1];
  const Difference& dm = *m.differences[1];
  const double width_samples = ds.ci_high - ds.ci_low;
  const double width_minutes = dm.ci_high - dm.ci_low;
  // As honest as before: neither much narrower (overconfident) nor much wider.
  EXPECT_GT(width_minutes, 0.75 * width_samples) << info(metric).name;
  EXPECT_LT(width_minutes, 1.33 * width_samples) << info(metric).name;
  EXPECT_EQ(dm.real, ds.real) << info(metric).name;
}

TEST(CompareMinutes, MeansAndIntervalsMatchTheSamplesOnes) {
  const std::vector<RunData> runs{wandering_run("a", 70, 300, 1), wandering_run("b", 70.4, 300, 7)};
  const Both both = compare_both(runs, {});
  expect_same_answer(both, RunMetric::GpuUtilPercent, 1e-9);
  expect_same_answer(both, RunMetric::PowerWatts, 1e-9);
  EXPECT_EQ(both.minutes.metrics.size(), both.samples.metrics.size());
  const RunStatistics& util = *find(both.minutes, RunMetric::GpuUtilPercent).runs[0];
  EXPECT_EQ(util.points, kSeconds / 60);
  EXPECT_EQ(util.summary.count, kSeconds);
  EXPECT_FALSE(both.minutes.notes.empty());  // says it read minutes
}

TEST(CompareMinutes, ARealDifferenceIsRealBothWays) {
  const std::vector<RunData> runs{wandering_run("a", 70, 300, 3), wandering_run("b", 75, 320, 5)};
  const Both both = compare_both(runs, {});
  expect_same_answer(both, RunMetric::GpuUtilPercent, 1e-9);
  expect_same_answer(both, RunMetric::PowerWatts, 1e-9);
  EXPECT_TRUE(find(both.minutes, RunMetric::PowerWatts).differences[1]->real);
}

TEST(CompareMinutes, WarmupCutsMinutesByTheShareInside) {
  const std::vector<RunData> runs{wandering_run("a", 70, 300, 11), wandering_run("b", 71, 300, 13)};
  CompareOptions options;
  options.warmup_s = 1830;  // half of minute 30 stays
  const Both both = compare_both(runs, options);
  EXPECT_DOUBLE_EQ(both.minutes.runs[0].window_from_s, 1830);
  // Half a minute at the edge is taken as spread evenly: means within 0.01 %.
  expect_same_answer(both, RunMetric::GpuUtilPercent, 1e-4);
}

TEST(CompareMinutes, AlignsByEpochAnnotations) {
  std::vector<RunData> runs{wandering_run("a", 70, 300, 17), wandering_run("b", 72, 300, 19)};
  for (RunData& r : runs) {
    for (int epoch = 1; epoch <= 5; ++epoch) {
      Event e;
      e.kind = "epoch";
      e.message = std::to_string(epoch);
      e.time.mono_ns = r.run.start_mono_ns + static_cast<std::int64_t>(epoch) * 3600 * 1'000'000'000LL;
      r.events.push_back(e);
    }
  }
  CompareOptions options;
  options.alignment = Alignment::Epoch;
  const Both both = compare_both(runs, options);
  EXPECT_DOUBLE_EQ(both.minutes.runs[0].window_from_s, 3600);
  EXPECT_DOUBLE_EQ(both.minutes.runs[0].window_to_s, both.samples.runs[0].window_to_s);
  // Over samples the window's first sample weighs half a tick (the clipped
  // series' own weights); in the rollups a whole one: 1e-6 of the mean.
  expect_same_answer(both, RunMetric::GpuUtilPercent, 1e-5);
}

TEST(CompareMinutes, FoldsAcrossGpusAsTheSamplesDo) {
  ColumnRollup a;
  a.count = 60;
  a.weight_ns = 60e9;
  a.mean = 10;
  a.m2 = 60e9 * 4;
  a.min = 6;
  a.max = 14;
  ColumnRollup b = a;
  b.mean = 30;
  b.min = 20;
  b.max = 40;
  MinuteFold sum(RunMetric::PowerWatts);  // sum over GPUs
  sum.add_device(std::vector{a});
  sum.add_device(std::vector{b});
  const ColumnRollup s = sum.minutes().at(0);
  EXPECT_DOUBLE_EQ(s.mean, 40);
  EXPECT_DOUBLE_EQ(s.min, 26);  // bounds: the fold's min is at least the sum of the mins
  EXPECT_DOUBLE_EQ(s.max, 54);
  EXPECT_DOUBLE_EQ(std::sqrt(s.m2 / s.weight_ns), 4);  // spreads add when GPUs move together
  MinuteFold mean(RunMetric::GpuUtilPercent);
  mean.add_device(std::vector{a});
  mean.add_device(std::vector{b});
  EXPECT_DOUBLE_EQ(mean.minutes().at(0).mean, 20);
  MinuteFold hottest(RunMetric::TempGpuCelsius);
  hottest.add_device(std::vector{a});
  hottest.add_device(std::vector{b});
  EXPECT_DOUBLE_EQ(hottest.minutes().at(0).mean, 30);
  EXPECT_DOUBLE_EQ(hottest.minutes().at(0).max, 40);
  MinuteFold share(RunMetric::MemUsedPercent);
  share.add_device(std::vector{a}, 100);
  share.add_device(std::vector{b}, 0);  // no total: not part of the share
  EXPECT_DOUBLE_EQ(share.minutes().at(0).mean, 10);
}

}  // namespace
}  // namespace gpuwatch
