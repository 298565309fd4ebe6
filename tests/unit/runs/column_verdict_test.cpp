// A long finished run is judged from its columns and rollups, never read
// whole (runs/run_status_window.h, issue 25). Here the same runs are judged
// both ways, and the verdicts must read the same: the advisories, their
// severity, GPU and line, their evidence.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "../analysis/advisor_test_util.h"
#include "analysis/rollup_stats.h"
#include "analysis/run_verdict.h"
#include "core/device_columns.h"
#include "core/rollup.h"
#include "core/throttle_reasons.h"
#include "runs/run_status_window.h"

namespace gpuwatch {
namespace {

using namespace advisor_test;

// Rollups made from the samples in memory, as the store makes them.
class MemoryRollups final : public RollupSource {
 public:
  explicit MemoryRollups(const RunData& data) : data_(data) {}
  [[nodiscard]] std::optional<DeviceRollups> rollups(int index) const override {
    for (const DeviceSeries& s : data_.devices) {
      if (s.info.index != index) continue;
      DeviceRollups r;
      r.device_index = index;
      for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
        r.metrics.push_back(rollup_column(s.mono_ns, s.values[m], data_.run.start_mono_ns, kDeviceMetrics[m].scale));
      }
      return r;
    }
    return std::nullopt;
  }

 private:
  const RunData& data_;
};

// What a store's load gives for `options`, from the run in memory (columns
// and devices not asked for are left in: the readers pick theirs).
RunData read_in_memory(const RunData& data, const LoadOptions& options) {
  if (!options.device_samples) return run_base(data);
  RunData out = data;
  if (options.since_mono_ns) drop_samples_before(out, *options.since_mono_ns);
  if (options.until_mono_ns) drop_samples_after(out, *options.until_mono_ns);
  return out;
}

// Columns that count what the verdict reads of them.
class CountedColumns final : public DeviceColumns {
 public:
  explicit CountedColumns(const DeviceColumns& columns) : columns_(columns) {}
  [[nodiscard]] DeviceSeries load(int index, std::span<const DeviceMetric> metrics, WallClock wall) const override {
    ++loads;
    return columns_.load(index, metrics, wall);
  }
  mutable std::size_t loads = 0;

 private:
  const DeviceColumns& columns_;
};

struct Verdicts {
  RunVerdict whole;
  RunVerdict columns;
  std::size_t reads = 0;  // of the run through RunRead by the column path
  std::size_t column_loads = 0;  // of a device's columns by the column path's rules
};

Verdicts judge_both_ways(const RunData& data, double age_s, const AdvisorConfig& config = {}) {
  Verdicts v;
  v.whole = finished_run_verdict(data, build_report(data), age_s, config);
  const RunData base = run_base(data);
  const RunDataColumns columns(data);
  const RunReport report = build_report(base, columns, MemoryRollups(data));
  const RunRead read = [&](const LoadOptions& o) {
    ++v.reads;
    return read_in_memory(data, o);
  };
  const auto end_ns = data.run.start_mono_ns + static_cast<std::int64_t>(age_s * 1e9);
  const CountedColumns counted(columns);
  v.columns = column_run_verdict(base, report, read, counted, config, end_ns);
  v.column_loads = counted.loads;
  return v;
}

// A line with its numbers left out: "memory # % of # GiB ...".
std::string words(const std::string& line) {
  static const std::regex number("[0-9]+(\\.[0-9]+)?");
  return std::regex_replace(line, number, "#");
}

// The same advisories in the same order, each with the same line and
// evidence; the numbers equal, or within the rollups' bucket error where
// they are a bucketed column's percentiles (memory's p95: the column way
// quotes the report's own, from the rollups, as `report` prints it).
void expect_same(const Verdicts& v) {
  EXPECT_EQ(v.columns.word, v.whole.word);
  ASSERT_EQ(ids(v.columns.advisories), ids(v.whole.advisories));
  for (std::size_t i = 0; i < v.whole.advisories.size(); ++i) {
    const Advisory& w = v.whole.advisories[i];
    const Advisory& c = v.columns.advisories[i];
    EXPECT_EQ(c.device_index, w.device_index) << w.id;
    EXPECT_EQ(c.severity, w.severity) << w.id;
    EXPECT_EQ(words(c.summary), words(w.summary)) << w.id;
    EXPECT_EQ(c.explained_by, w.explained_by) << w.id;
    ASSERT_EQ(c.evidence.size(), w.evidence.size()) << w.id;
    for (std::size_t k = 0; k < w.evidence.size(); ++k) {
      EXPECT_EQ(c.evidence[k].name, w.evidence[k].name) << w.id;
      EXPECT_NEAR(c.evidence[k].value, w.evidence[k].value, kRollupRelativeError * std::max(1.0, std::abs(w.evidence[k].value)))
          << w.id << " " << w.evidence[k].name;
    }
  }
}

constexpr double kHours = 2;
constexpr double kRunS = kHours * 3600;

// Four GPUs for two hours at 1 Hz, each busy as `util`, holding `mem`,
// with power, its limit and the clock-event reasons.
Window long_run(const std::function<Curve(int)>& util, const std::function<Curve(int)>& mem) {
  Window w(kRunS, 1.0);
  for (int g = 0; g < 4; ++g) {
    w.gpu(g, util(g), mem(g));
    const Curve u = util(g);
    w.set(g, DeviceMetric::PowerWatts, [u](double t) { return std::round(90 + u(t) * 5.6); });
    w.set(g, DeviceMetric::PowerLimitWatts, flat(700));
    w.set(g, DeviceMetric::ClockEventReasons, [u](double t) {
      return u(t) > 80 ? static_cast<double>(kThrottleSwPowerCap) : 0.0;
    });
  }
  return w;
}

Curve gib(double v) {
  return [v](double) { return v * kGiB; };
}

TEST(ColumnVerdict, InputStallsWithLowUtilizationAndThrottling) {
  // Busy at 20 % for 2 s of every 10, else idle: low, with gaps every 10 s;
  // GPU 0 runs hot under the power cap half the time.
  Window w = long_run(
      [](int g) -> Curve {
        return [g](double t) { return g == 0 ? (std::fmod(t, 2) < 1 ? 95.0 : 0.0) : (std::fmod(t, 10) < 2 ? 20.0 : 0.0); };
      },
      [](int) { return gib(30); });
  const Verdicts v = judge_both_ways(w.data, kRunS);
  expect_same(v);
  EXPECT_TRUE(find(v.whole.advisories, "throttle.power", 0)) << ::testing::PrintToString(ids(v.whole.advisories));
  EXPECT_NE(v.whole.word, "ok");
}

TEST(ColumnVerdict, SteadyMemoryGrowth) {
  Window w = long_run([](int) { return flat(95); },
                      [](int g) -> Curve {
                        return [g](double t) { return std::round((20 + g + t / kRunS * 40) * 1024) * kMiB; };
                      });
  const Verdicts v = judge_both_ways(w.data, kRunS);
  expect_same(v);
  EXPECT_TRUE(find(v.whole.advisories, "memory.growing", 0)) << ::testing::PrintToString(ids(v.whole.advisories));
}

TEST(ColumnVerdict, EpochPeaksThatGrowAreALeak) {
  // An epoch every 10 minutes; each epoch's peak 1 GiB above the last.
  Window w = long_run([](int) { return flat(95); },
                      [](int) -> Curve {
                        return [](double t) {
                          const double epoch = std::floor(t / 600);
                          const double in_epoch = std::fmod(t, 600);
                          return (30 + epoch + (in_epoch > 500 ? 2 : 0)) * kGiB;
                        };
                      });
  for (double t = 0; t < kRunS; t += 600) w.event(t, "epoch", std::to_string(static_cast<int>(t / 600)));
  const Verdicts v = judge_both_ways(w.data, kRunS);
  expect_same(v);
  EXPECT_TRUE(find(v.whole.advisories, "memory.leak", 0)) << ::testing::PrintToString(ids(v.whole.advisories));
}

TEST(ColumnVerdict, ASlowGpu) {
  Window w = long_run([](int g) { return flat(g == 3 ? 55 : 95); }, [](int) { return gib(40); });
  const Verdicts v = judge_both_ways(w.data, kRunS);
  expect_same(v);
  EXPECT_TRUE(find(v.whole.advisories, "balance.straggler", 3)) << ::testing::PrintToString(ids(v.whole.advisories));
}

TEST(ColumnVerdict, AJobThatHungAtItsEnd) {
  // The last 20 minutes: GPUs 0-2 spin at 100 % in a collective, GPU 3 idle.
  Window w = long_run(
      [](int g) -> Curve {
        return [g](double t) { return t < kRunS - 1200 ? 95.0 : (g == 3 ? 0.0 : 100.0); };
      },
      [](int) { return gib(40); });
  for (double t = 0; t < kRunS - 1200; t += 10) w.event(t, "step", std::to_string(static_cast<int>(t / 10)));
  const Verdicts v = judge_both_ways(w.data, kRunS);
  expect_same(v);
  EXPECT_TRUE(find(v.whole.advisories, "job.hung", std::nullopt)) << ::testing::PrintToString(ids(v.whole.advisories));
}

TEST(ColumnVerdict, AQuietRunReadsNoColumnWhole) {
  // Nothing points at the samples: the rules read no column, and only the
  // run's end and its first and last samples go through RunRead.
  Window w = long_run([](int) { return flat(60); }, [](int) { return gib(40); });
  const Verdicts v = judge_both_ways(w.data, kRunS);
  expect_same(v);
  EXPECT_EQ(v.column_loads, 0u);
  EXPECT_EQ(v.reads, 3u);
}

TEST(ColumnVerdict, OnlyLongRunsAreJudgedFromColumns) {
  RunData base;
  base.run.start_mono_ns = kStartMono;
  base.run.interval_s = 0.1;
  base.devices.resize(8);
  // 8 GPUs at 10 Hz: 500,000 device-samples in 104 minutes.
  EXPECT_FALSE(judged_from_columns(base, kStartMono + 100 * 60 * kSec));
  EXPECT_TRUE(judged_from_columns(base, kStartMono + 110 * 60 * kSec));
  base.run.interval_s = 0;  // unknown: read whole, as before
  EXPECT_FALSE(judged_from_columns(base, kStartMono + 1000 * 3600 * kSec));
}

}  // namespace
}  // namespace gpuwatch
