#include "analysis/compare.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "run_data_util.h"

namespace gpuwatch {
namespace {

using namespace run_data_test;

const MetricComparison& find(const Comparison& c, RunMetric m) {
  for (const MetricComparison& mc : c.metrics) {
    if (mc.metric == m) return mc;
  }
  throw std::runtime_error("metric not compared");
}

RunData util_run(const std::string& name, const std::vector<double>& util, double interval_s = 1.0) {
  RunData d = make_run(name, name + "00000000");
  set_device(d, 0, DeviceMetric::GpuUtilPercent, util, interval_s);
  return d;
}

Difference util_difference(const RunData& a, const RunData& b, const CompareOptions& o = {}) {
  const std::vector<RunData> runs{a, b};
  return *find(compare_runs(runs, o), RunMetric::GpuUtilPercent).differences[1];
}

double naive_iid_half_width(const std::vector<double>& a, const std::vector<double>& b) {
  return 1.96 * std::sqrt(sample_variance(a) / static_cast<double>(a.size()) +
                          sample_variance(b) / static_cast<double>(b.size()));
}

TEST(Compare, HandComputedMeansAndDeltas) {
  // Time weights 0.5, 1, 1, 0.5: A = (0.5*10 + 20 + 30 + 0.5*40) / 3 = 25.
  const RunData a = util_run("a", {10, 20, 30, 40});
  const RunData b = util_run("b", {30, 30, 30, 30});
  const std::vector<RunData> runs{a, b};
  const Comparison c = compare_runs(runs, {});
  const MetricComparison& util = find(c, RunMetric::GpuUtilPercent);
  ASSERT_EQ(util.runs.size(), 2u);
  EXPECT_DOUBLE_EQ(util.runs[0]->summary.mean, 25);
  EXPECT_DOUBLE_EQ(util.runs[1]->summary.mean, 30);
  EXPECT_FALSE(util.differences[0]);  // the baseline has no difference to itself
  const Difference& d = *util.differences[1];
  EXPECT_DOUBLE_EQ(d.delta, 5);
  EXPECT_DOUBLE_EQ(*d.delta_percent, 20);
  EXPECT_EQ(c.runs[0].label, "A");
  EXPECT_EQ(c.runs[1].label, "B");
  // Only utilization has values: no other metric is listed.
  EXPECT_EQ(c.metrics.size(), 1u);
}

TEST(Compare, ConstantSeriesGiveThePointDifferenceAsInterval) {
  const Difference d = util_difference(util_run("a", constant(50, 40)), util_run("b", constant(50, 50)));
  EXPECT_DOUBLE_EQ(d.delta, 10);
  EXPECT_NEAR(d.ci_low, 10, 1e-9);
  EXPECT_NEAR(d.ci_high, 10, 1e-9);
  EXPECT_NEAR(*d.ci_low_percent, 25, 1e-9);
  EXPECT_TRUE(d.real);
  const Difference same = util_difference(util_run("a", constant(50, 40)), util_run("b", constant(50, 40)));
  EXPECT_EQ(same.ci_low, 0);
  EXPECT_EQ(same.ci_high, 0);
  EXPECT_FALSE(same.real);
}

TEST(Compare, WhiteNoiseShiftIsRealWithTheAnalyticWidth) {
  const auto a = white_noise(5000, 50, 4, 1);
  const auto b = white_noise(5000, 51, 6, 2);
  const Difference d = util_difference(util_run("a", a), util_run("b", b));
  EXPECT_TRUE(d.real);
  EXPECT_GT(d.ci_low, 0);
  EXPECT_LT(d.ci_low, d.delta);
  EXPECT_GT(d.ci_high, d.delta);
  // For independent samples the bootstrap must agree with the textbook
  // interval 1.96·sqrt(s1²/n1 + s2²/n2).
  const double half = naive_iid_half_width(a, b);
  EXPECT_NEAR((d.ci_high - d.ci_low) / (2 * half), 1, 0.12);
}

TEST(Compare, AutocorrelatedSamplesWidenTheInterval) {
  // AR(1) with phi = 0.95: the variance of the mean is (1+phi)/(1-phi) = 39
  // times what independent samples would give, so the iid interval is about
  // six times too narrow.
  const auto a = ar1(4000, 50, 0.95, 1, 21);
  const auto b = ar1(4000, 50, 0.95, 1, 22);
  const std::vector<RunData> runs{util_run("a", a), util_run("b", b)};
  const Comparison c = compare_runs(runs, {});
  const MetricComparison& util = find(c, RunMetric::GpuUtilPercent);
  const Difference& d = *util.differences[1];
  const double naive_width = 2 * naive_iid_half_width(a, b);
  EXPECT_GT((d.ci_high - d.ci_low) / naive_width, 3.0);
  EXPECT_GT(util.runs[0]->block_points, 20u);
  // The effective sample size tells the same story: far fewer than 4000.
  EXPECT_LT(util.runs[0]->effective_samples, 4000 / 10.0);
  EXPECT_GT(util.runs[0]->effective_samples, 4000 / 200.0);
}

TEST(Compare, IdenticalRunsDoNotDiffer) {
  const auto v = ar1(3000, 70, 0.8, 3, 5);
  const Difference d = util_difference(util_run("a", v), util_run("b", v));
  EXPECT_DOUBLE_EQ(d.delta, 0);
  EXPECT_LT(d.ci_low, 0);
  EXPECT_GT(d.ci_high, 0);
  EXPECT_FALSE(d.real);
}

TEST(Compare, SameInputSameOutput) {
  const RunData a = util_run("a", white_noise(2000, 30, 5, 8));
  const RunData b = util_run("b", ar1(2000, 31, 0.9, 2, 9));
  const Difference first = util_difference(a, b);
  const Difference second = util_difference(a, b);
  EXPECT_EQ(first.ci_low, second.ci_low);
  EXPECT_EQ(first.ci_high, second.ci_high);
  EXPECT_EQ(*first.ci_low_percent, *second.ci_low_percent);
}

TEST(Compare, LessInBIsANegativeDelta) {
  const Difference d = util_difference(util_run("a", white_noise(1000, 80, 1, 1)), util_run("b", white_noise(1000, 60, 1, 2)));
  EXPECT_LT(d.delta, 0);
  EXPECT_LT(*d.delta_percent, -20);
  EXPECT_LT(d.ci_high, 0);
  EXPECT_TRUE(d.real);
}

TEST(Compare, WarmupIsTrimmed) {
  // A spends its first 5 s at 100 % (loading), then 40 % like B.
  std::vector<double> a = constant(30, 40);
  for (int i = 0; i < 5; ++i) a[static_cast<std::size_t>(i)] = 100;
  const RunData ra = util_run("a", a);
  const RunData rb = util_run("b", constant(30, 40));
  EXPECT_LT(util_difference(ra, rb).delta, -5);  // B − A: the warm-up makes A look busier
  CompareOptions o;
  o.warmup_s = 5;
  const Difference trimmed = util_difference(ra, rb, o);
  EXPECT_DOUBLE_EQ(trimmed.delta, 0);
  EXPECT_FALSE(trimmed.real);
  const std::vector<RunData> runs{ra, rb};
  EXPECT_DOUBLE_EQ(compare_runs(runs, o).runs[1].window_from_s, 5);
}

TEST(Compare, CommonSpanByDefaultFullRunsOnRequest) {
  // A lasts 10 s at 50 %; B is at 50 % for 10 s, then 90 % for 10 s more.
  std::vector<double> b = constant(21, 50);
  for (std::size_t i = 11; i < b.size(); ++i) b[i] = 90;
  const RunData ra = util_run("a", constant(11, 50));
  const RunData rb = util_run("b", b);
  const std::vector<RunData> runs{ra, rb};
  const Comparison common = compare_runs(runs, {});
  EXPECT_DOUBLE_EQ(common.runs[1].window_to_s, 10);
  EXPECT_DOUBLE_EQ(common.runs[1].end_s, 20);
  EXPECT_DOUBLE_EQ(find(common, RunMetric::GpuUtilPercent).differences[1]->delta, 0);
  CompareOptions full;
  full.span = SpanMode::Full;
  const Comparison whole = compare_runs(runs, full);
  EXPECT_DOUBLE_EQ(whole.runs[1].window_to_s, 20);
  EXPECT_GT(find(whole, RunMetric::GpuUtilPercent).differences[1]->delta, 15);
}

TEST(Compare, ElapsedTimeNotSampleIndexAlignsRuns) {
  // The same 0 -> 100 step at 5 s, sampled every 1 s in A and every 0.5 s in
  // B. Matching sample i with sample i (the original tool's mistake) would
  // see a difference; by time there is none.
  std::vector<double> a(11, 0);
  std::vector<double> b(21, 0);
  for (std::size_t i = 5; i < a.size(); ++i) a[i] = 100;
  for (std::size_t i = 10; i < b.size(); ++i) b[i] = 100;
  const Difference d = util_difference(util_run("a", a, 1.0), util_run("b", b, 0.5));
  EXPECT_NEAR(d.delta, 0, 3);  // 55 vs 52.5: only where the step falls between samples
  EXPECT_FALSE(d.real);
}

TEST(Compare, EpochAlignmentNeedsAnnotations) {
  const std::vector<RunData> runs{util_run("a", constant(10, 1)), util_run("b", constant(10, 2))};
  CompareOptions o;
  o.alignment = Alignment::Epoch;
  try {
    compare_runs(runs, o);
    FAIL() << "expected CompareError";
  } catch (const CompareError& e) {
    EXPECT_NE(std::string(e.what()).find("no epoch annotations"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("run A"), std::string::npos) << e.what();
  }
}

TEST(Compare, EpochAlignmentUsesTheEpochsAllRunsReached) {
  auto annotate = [](RunData& d, double at_s, const std::string& kind, const std::string& message) {
    Event e;
    e.kind = kind;
    e.message = message;
    e.time.mono_ns = kStartMono + static_cast<std::int64_t>(at_s * 1e9);
    d.events.push_back(e);
  };
  RunData a = util_run("a", constant(61, 10));  // epochs 1-3 start at 0, 20, 40 s
  annotate(a, 0, "epoch", "1");
  annotate(a, 0, "log", "loss=2.1");
  annotate(a, 20, "epoch", "2");
  annotate(a, 40, "epoch", "3");
  RunData b = util_run("b", constant(61, 10));  // slower: epochs 1-2 at 0, 30 s
  annotate(b, 0, "step", "0");
  annotate(b, 0, "epoch", "1");
  annotate(b, 30, "step", "100");
  annotate(b, 30, "epoch", "2");
  const std::vector<RunData> runs{a, b};
  CompareOptions o;
  o.alignment = Alignment::Epoch;
  const std::vector<ElapsedWindow> w = compare_windows(runs, o);
  EXPECT_DOUBLE_EQ(w[0].from_s, 0);
  EXPECT_DOUBLE_EQ(w[0].to_s, 40);  // epochs 1 and 2 of A end where epoch 3 begins
  EXPECT_DOUBLE_EQ(w[1].from_s, 0);
  EXPECT_DOUBLE_EQ(w[1].to_s, 60);  // B's epoch 2 runs to its end
  o.alignment = Alignment::Step;
  EXPECT_THROW(compare_windows(runs, o), CompareError);  // A has no step annotations
}

TEST(Compare, BadRequestsAreErrors) {
  const RunData a = util_run("a", constant(10, 1));
  EXPECT_THROW(compare_runs(std::vector<RunData>{a}, {}), CompareError);
  CompareOptions o;
  o.warmup_s = 60;  // the runs last 9 s
  EXPECT_THROW(compare_runs(std::vector<RunData>{a, a}, o), CompareError);
  RunData empty = make_run("e", "e00000000000");
  EXPECT_THROW(compare_runs(std::vector<RunData>{a, empty}, {}), CompareError);
}

TEST(Compare, AMetricMissingInOneRunHasNoDifference) {
  RunData a = util_run("a", constant(10, 50));
  set_device(a, 0, DeviceMetric::PowerWatts, constant(10, 300));
  const RunData b = util_run("b", constant(10, 60));
  const std::vector<RunData> runs{a, b};
  const Comparison c = compare_runs(runs, {});
  const MetricComparison& power = find(c, RunMetric::PowerWatts);
  EXPECT_TRUE(power.runs[0]);
  EXPECT_FALSE(power.runs[1]);
  EXPECT_FALSE(power.differences[1]);
}

TEST(Compare, JunctionTemperatureIsTheHottestGpusAndOnlyWhereRecorded) {
  RunData a = util_run("a", constant(4, 50));
  set_device(a, 0, DeviceMetric::TempJunctionCelsius, constant(4, 90));
  set_device(a, 1, DeviceMetric::TempJunctionCelsius, constant(4, 94));
  RunData b = util_run("b", constant(4, 60));
  set_device(b, 0, DeviceMetric::TempJunctionCelsius, constant(4, 80));
  const std::vector<RunData> runs{a, b};
  const Comparison c = compare_runs(runs, {});
  const MetricComparison& junction = find(c, RunMetric::TempJunctionCelsius);
  EXPECT_DOUBLE_EQ(junction.runs[0]->summary.mean, 94);  // max over GPUs
  EXPECT_DOUBLE_EQ(junction.differences[1]->delta, -14);
  // Runs without the sensor (NVIDIA, Intel) leave the row out.
  const std::vector<RunData> nvidia{util_run("c", constant(4, 50)), util_run("d", constant(4, 60))};
  for (const MetricComparison& mc : compare_runs(nvidia, {}).metrics) {
    EXPECT_NE(mc.metric, RunMetric::TempJunctionCelsius);
  }
}

TEST(Compare, LongRunsAreBinnedToABoundedSize) {
  const std::vector<RunData> runs{util_run("a", white_noise(50'000, 50, 5, 1), 0.1),
                                  util_run("b", white_noise(50'000, 50, 5, 2), 0.1)};
  CompareOptions o;
  o.max_points = 1000;
  const Comparison c = compare_runs(runs, o);
  const RunStatistics& s = *find(c, RunMetric::GpuUtilPercent).runs[0];
  EXPECT_EQ(s.summary.count, 50'000u);
  EXPECT_LE(s.points, 1000u);
  // Binning 50 iid samples per bin loses nothing: the effective sample size
  // still counts the original samples.
  EXPECT_GT(s.effective_samples, 50'000 * 0.8);
}

}  // namespace
}  // namespace gpuwatch
