// A long run drawn from its per-minute rollups (plot_rollups.h) must say
// what its samples say: the same numbers, an envelope with every spike and
// gap, compare's mean within a pixel, and the same pixels where it counts.
#include "render/plot/plot_rollups.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/aggregate.h"
#include "analysis/histogram.h"
#include "render/plot/plot.h"
#include "runs/stored_plot.h"
#include "store/rollups.h"
#include "store/stored_columns.h"
#include "../store/store_test_util.h"
#include "plot_test_util.h"

namespace gpuwatch::plot {
namespace {

using synthetic::kStartWallNs;

std::size_t col(DeviceMetric m) { return static_cast<std::size_t>(m); }

// Rollups computed from a run in memory, as the store builds them.
class MemoryRollups final : public RollupSource {
 public:
  explicit MemoryRollups(const RunData& run, int without_device = -1) {
    for (const DeviceSeries& d : run.devices) {
      if (d.info.index == without_device) continue;
      DeviceRollups r;
      r.device_index = d.info.index;
      r.metrics.resize(kDeviceMetricCount);
      for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
        if (d.values[m].size() != d.mono_ns.size()) continue;
        r.metrics[m] = rollup_column(d.mono_ns, d.values[m], run.run.start_mono_ns, kDeviceMetrics[m].scale);
      }
      by_device_[d.info.index] = std::move(r);
    }
  }
  [[nodiscard]] std::optional<DeviceRollups> rollups(int index) const override {
    const auto it = by_device_.find(index);
    return it == by_device_.end() ? std::nullopt : std::optional(it->second);
  }

 private:
  std::map<int, DeviceRollups> by_device_;
};

// 9 hours of 2 GPUs at 1 Hz (540 minutes: more than a 400-pixel picture's
// columns): a slow wave with noise, a one-second spike to 100 % on GPU 0,
// a dip to 0 on GPU 1, and GPU 1 stopped for half an hour.
constexpr double kSpikeS = 4 * 3600 + 17;
constexpr double kDipS = 6 * 3600 + 5;
constexpr double kStopFromS = 2 * 3600;
constexpr double kStopToS = 2 * 3600 + 1800;

RunData long_run() {
  synthetic::SyntheticRun spec;
  spec.gpus = 2;
  spec.duration_s = 9 * 3600;
  spec.hz = 1;
  spec.util = [](std::size_t g, double t) {
    if (g == 0 && t == kSpikeS) return 100.0;
    if (g == 1 && t == kDipS) return 0.0;
    const double wobble = std::fmod(t * 7.3, 5.0);  // deterministic noise of 0..5
    return std::round(55 + 20 * std::sin(t / 3000 + static_cast<double>(g)) + wobble);
  };
  RunData run = synthetic::make_run(spec);
  run.run.status = RunStatus::Finished;
  run.run.end_wall_ns = kStartWallNs + static_cast<std::int64_t>(spec.duration_s * 1e9);
  DeviceSeries& d = run.devices[1];
  for (std::size_t i = 0; i < d.wall_ns.size(); ++i) {
    const double t = static_cast<double>(d.wall_ns[i] - kStartWallNs) / 1e9;
    if (t >= kStopFromS && t < kStopToS) {
      for (auto& column : d.values) column[i] = kNaN;
    }
  }
  // In the store's fixed point, as a stored run's samples are.
  for (DeviceSeries& device : run.devices) {
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      const double scale = kDeviceMetrics[m].scale;
      for (double& v : device.values[m]) v = std::isnan(v) ? v : static_cast<double>(std::llround(v * scale)) / scale;
    }
  }
  return run;
}

PlotOptions narrow(PlotKind kind) {
  PlotOptions options;
  options.kind = kind;
  options.width_px = 400;
  options.height_px = 600;
  return options;
}

PlotRun read(const RunData& run, const PlotOptions& options, const RollupSource* rollups) {
  return read_for_plot(run_base(run), RunDataColumns(run), options, rollups);
}

TEST(PlotRollups, OnlyARunLongerInMinutesThanThePictureIsWideIsReadFromRollups) {
  const RunData run = long_run();
  const MemoryRollups rollups(run);
  EXPECT_EQ(run_minutes(run.run), 540);
  EXPECT_TRUE(read(run, narrow(PlotKind::Timeline), &rollups).from_rollups);
  PlotOptions wide = narrow(PlotKind::Timeline);
  wide.width_px = 1600;  // more pixel columns than minutes: samples
  EXPECT_FALSE(read(run, wide, &rollups).from_rollups);
  EXPECT_FALSE(read(run, narrow(PlotKind::Timeline), nullptr).from_rollups);
  // A GPU without rollups: the whole run from its samples.
  const MemoryRollups partial(run, 1);
  EXPECT_FALSE(read(run, narrow(PlotKind::Timeline), &partial).from_rollups);
  // A run still recording has no end yet: its samples.
  RunData recording = run;
  recording.run.status = RunStatus::Recording;
  recording.run.end_wall_ns.reset();
  recording.run.heartbeat_wall_ns = *run.run.end_wall_ns;
  EXPECT_FALSE(read(recording, narrow(PlotKind::Timeline), &rollups).from_rollups);
}

TEST(PlotRollups, NumbersAreTheSamplesNumbers) {
  const RunData run = long_run();
  const MemoryRollups rollups(run);
  for (const PlotKind kind : {PlotKind::PerGpu, PlotKind::Balance, PlotKind::Histogram}) {
    PlotOptions options = narrow(kind);
    if (kind == PlotKind::PerGpu) options.metric = DeviceMetric::GpuUtilPercent;
    if (kind == PlotKind::Histogram) options.metric = DeviceMetric::PowerWatts;
    const PlotRun from_samples = read(run, options, nullptr);
    const PlotRun from_minutes = read(run, options, &rollups);
    ASSERT_TRUE(from_minutes.from_rollups);
    const PlotNeeds needs = plot_needs(options);
    for (std::size_t g = 0; g < run.devices.size(); ++g) {
      const DeviceData& a = from_samples.devices[g];
      const DeviceData& b = from_minutes.devices[g];
      // From minutes, the samples with a value (here GPU 1's stop is not
      // counted): a count only ever asked whether it is zero.
      EXPECT_GT(b.samples, 0u);
      EXPECT_LE(b.samples, a.samples);
      EXPECT_LE(std::abs(a.last_wall_ns - b.last_wall_ns), kRollupMinuteNs);
      for (const DeviceMetric m : needs.moments) {
        ASSERT_TRUE(a.metric(m).moments && b.metric(m).moments);
        const Moments& x = *a.metric(m).moments;
        const Moments& y = *b.metric(m).moments;
        EXPECT_EQ(x.count, y.count);
        EXPECT_NEAR(x.mean, y.mean, 1e-9 * std::abs(x.mean));
        EXPECT_NEAR(x.std, y.std, 1e-9 * std::abs(x.mean));
        EXPECT_EQ(x.min, y.min);
        EXPECT_EQ(x.max, y.max);
      }
      for (const DeviceMetric m : needs.columns()) {
        EXPECT_EQ(a.metric(m).range.lo, b.metric(m).range.lo) << info(m).name;
        EXPECT_EQ(a.metric(m).range.hi, b.metric(m).range.hi) << info(m).name;
      }
      if (needs.histogram) {
        // Exact values (few, in the store's fixed point): the same shares.
        const HistogramBins bins{100, 20, 35};
        const std::vector<double> x = time_share_histogram(a.histogram, bins);
        const std::vector<double> y = time_share_histogram(b.histogram, bins);
        for (std::size_t k = 0; k < x.size(); ++k) EXPECT_NEAR(x[k], y[k], 1e-9) << "bin " << k;
      }
    }
  }
}

// Per pixel column, the lowest and highest value a line draws (NaN-free
// columns only), and whether the column breaks.
struct Column {
  double lo = kNaN;
  double hi = kNaN;
};
std::vector<Column> columns(const Line& line, const BucketGrid& grid) {
  LineBuilder builder;
  std::vector<Column> out(grid.count);
  const double width = (grid.t_end - grid.t_begin) / static_cast<double>(grid.count);
  for (const LinePoint& p : builder.points(line, 0, grid)) {
    if (std::isnan(p.v)) continue;
    const auto k = std::min(grid.count - 1, static_cast<std::size_t>(std::max(0.0, (p.t - grid.t_begin) / width)));
    out[k].lo = std::isnan(out[k].lo) ? p.v : std::min(out[k].lo, p.v);
    out[k].hi = std::isnan(out[k].hi) ? p.v : std::max(out[k].hi, p.v);
  }
  return out;
}

TEST(PlotRollups, TheEnvelopeKeepsEverySpikeAndGap) {
  const RunData run = long_run();
  const MemoryRollups rollups(run);
  PlotOptions options = narrow(PlotKind::PerGpu);
  options.metric = DeviceMetric::GpuUtilPercent;
  const PlotRun from_samples = read(run, options, nullptr);
  const PlotRun from_minutes = read(run, options, &rollups);
  const BucketGrid grid{0, 9 * 3600, 360};  // 90 s per pixel column
  for (std::size_t g = 0; g < 2; ++g) {
    const Line& minutes_line = from_minutes.devices[g].metric(DeviceMetric::GpuUtilPercent).line;
    const std::vector<Column> a = columns(from_samples.devices[g].metric(DeviceMetric::GpuUtilPercent).line, grid);
    const std::vector<Column> b = columns(minutes_line, grid);
    for (std::size_t k = 1; k + 1 < a.size(); ++k) {
      ASSERT_EQ(std::isnan(a[k].lo), std::isnan(b[k].lo)) << "GPU " << g << " column " << k;
      if (std::isnan(a[k].lo)) continue;
      // A minute across a column's edge lands on one side of it: each
      // column's extremes are within those of it and its neighbours.
      double lo = a[k].lo;
      double hi = a[k].hi;
      for (const Column& c : {a[k - 1], a[k + 1]}) {
        if (!std::isnan(c.lo)) lo = std::min(lo, c.lo);
        if (!std::isnan(c.hi)) hi = std::max(hi, c.hi);
      }
      EXPECT_GE(b[k].lo, lo) << k;
      EXPECT_LE(b[k].hi, hi) << k;
    }
    // Every extreme, the one-second spike and dip among them, is drawn.
    const ValueRange all = finite_range(minutes_line.v);
    const ValueRange samples = finite_range(from_samples.devices[g].metric(DeviceMetric::GpuUtilPercent).line.v);
    EXPECT_EQ(all.hi, samples.hi);
    EXPECT_EQ(all.lo, samples.lo);
    EXPECT_EQ(g == 0 ? all.hi : all.lo, g == 0 ? 100 : 0);
  }
  // The spike and the dip land within a minute of where they were.
  const Line& gpu0 = from_minutes.devices[0].metric(DeviceMetric::GpuUtilPercent).line;
  const auto spike = std::find(gpu0.v.begin(), gpu0.v.end(), 100.0);
  ASSERT_NE(spike, gpu0.v.end());
  EXPECT_NEAR(gpu0.t_s[static_cast<std::size_t>(spike - gpu0.v.begin())], kSpikeS, 60);
  // GPU 1's stop is a gap from the minutes too, and only there.
  const Line& gpu1 = from_minutes.devices[1].metric(DeviceMetric::GpuUtilPercent).line;
  std::vector<double> gaps_at;
  for (std::size_t i = 0; i < gpu1.v.size(); ++i) {
    if (std::isnan(gpu1.v[i])) gaps_at.push_back(gpu1.t_s[i]);
  }
  ASSERT_EQ(gaps_at.size(), 1u);
  EXPECT_NEAR(gaps_at[0], kStopFromS, 60);
}

TEST(PlotRollups, CompareMeanIsTheSamplesMeanWithinAPixel) {
  RunData a = long_run();
  RunData b = long_run();
  b.run.id = "bbbbbbbbbbbb";
  const MemoryRollups rollups(a);
  PlotOptions options = narrow(PlotKind::Compare);
  options.metric = DeviceMetric::GpuUtilPercent;
  const PlotRun from_minutes = read(a, options, &rollups);
  ASSERT_TRUE(from_minutes.from_rollups);
  // The samples' mean over the GPUs at each tick, averaged per pixel column.
  std::vector<TimedColumn> series;
  for (const DeviceSeries& d : a.devices) series.push_back({d.wall_ns, d.values[col(DeviceMetric::GpuUtilPercent)]});
  std::vector<std::int64_t> t_ns;
  std::vector<double> v;
  mean_across(series, 500'000'000, max_age_ns(a.run, DeviceMetric::GpuUtilPercent), t_ns, v);
  constexpr std::size_t kColumns = 360;
  const double width_s = 9 * 3600.0 / kColumns;
  std::vector<double> sum(kColumns, 0);
  std::vector<double> n(kColumns, 0);
  for (std::size_t i = 0; i < t_ns.size(); ++i) {
    const auto k = std::min(kColumns - 1, static_cast<std::size_t>(seconds_between(kStartWallNs, t_ns[i]) / width_s));
    if (std::isnan(v[i])) continue;
    sum[k] += v[i];
    n[k] += 1;
  }
  // The picture's 100 % over about 150 pixels of panel height: within one.
  const double pixel = 100.0 / 150;
  const Line& line = from_minutes.mean(DeviceMetric::GpuUtilPercent);
  std::size_t checked = 0;
  for (std::size_t i = 0; i < line.t_s.size(); ++i) {
    const auto k = static_cast<std::size_t>(line.t_s[i] / width_s);
    if (std::isnan(line.v[i]) || k == 0 || k + 1 >= kColumns || n[k] == 0) continue;
    // The neighbours' means too: a minute across an edge sits on one side.
    const double lo = std::min({sum[k - 1] / n[k - 1], sum[k] / n[k], sum[k + 1] / n[k + 1]});
    const double hi = std::max({sum[k - 1] / n[k - 1], sum[k] / n[k], sum[k + 1] / n[k + 1]});
    EXPECT_GE(line.v[i], lo - pixel) << line.t_s[i];
    EXPECT_LE(line.v[i], hi + pixel) << line.t_s[i];
    ++checked;
  }
  EXPECT_GT(checked, 300u);
  // Drawn beside a run read from its samples, on one axis.
  const std::vector<PlotRun> both{read(a, options, &rollups), read(b, options, nullptr)};
  auto canvas = Canvas::image(options.width_px, options.height_px);
  EXPECT_NO_THROW(render_plot(*canvas, both, options));
}

TEST(PlotRollups, EveryKindDrawsFromRollups) {
  const RunData run = long_run();
  const MemoryRollups rollups(run);
  for (const std::string& name : plot_kind_names()) {
    const PlotOptions options = narrow(*plot_kind_by_name(name));
    const std::size_t count = options.kind == PlotKind::Compare ? 2 : 1;
    std::vector<PlotRun> runs;
    for (std::size_t r = 0; r < count; ++r) runs.push_back(read(run, options, &rollups));
    ASSERT_TRUE(runs[0].from_rollups) << name;
    auto canvas = Canvas::image(options.width_px, options.height_px);
    EXPECT_NO_THROW(render_plot(*canvas, runs, options)) << name;
  }
}

class StoredRunRollups : public store_test::StoreTest {};

TEST_F(StoredRunRollups, AStoredRunsRollupsGiveItsSamplesNumbers) {
  RunInfo run = new_run("long");
  constexpr std::int64_t kTicks = 420 * 60;  // 420 minutes at 1 Hz: more than 400 pixel columns
  run.start_wall_ns = store_test::kWall0;
  run.start_mono_ns = 5 * store_test::kSecond;
  run.end_wall_ns = store_test::kWall0 + kTicks * store_test::kSecond;
  {
    auto store = Store::open(path_, false);
    store->begin_run(run, two_devices());
    for (std::int64_t i = 0; i < kTicks; ++i) {
      for (int dev = 0; dev < 2; ++dev) {
        DeviceSample s = device_sample(dev, i);
        s.time.mono_ns = run.start_mono_ns + i * store_test::kSecond;
        s.time.wall_ns = store_test::kWall0 + i * store_test::kSecond;
        store->append(s);
      }
      if (i % 600 == 599) store->flush();
    }
    store->finish_run(run);
  }
  auto store = Store::open(path_, true);
  const RunInfo stored = store->resolve("long");
  ASSERT_TRUE(build_rollups(path_, stored));
  PlotOptions options = narrow(PlotKind::PerGpu);
  options.metric = DeviceMetric::GpuUtilPercent;
  const StoredPlotRollups rollups(path_, stored, plot_needs(options).columns());
  const PlotRun from_minutes = read_for_plot(load_run_base(*store, stored), StoredColumns(path_, stored), options, &rollups);
  const PlotRun from_samples = read_for_plot(load_run_base(*store, stored), StoredColumns(path_, stored), options);
  ASSERT_TRUE(from_minutes.from_rollups);
  // Only the metrics the picture draws are read.
  const std::optional<DeviceRollups> gpu0 = rollups.rollups(0);
  ASSERT_TRUE(gpu0);
  EXPECT_EQ(gpu0->of(DeviceMetric::GpuUtilPercent).size(), 420u);
  EXPECT_TRUE(gpu0->of(DeviceMetric::PowerWatts).empty());
  EXPECT_FALSE(rollups.rollups(7));  // no such GPU
  for (std::size_t g = 0; g < 2; ++g) {
    const auto& a = from_samples.devices[g].metric(DeviceMetric::GpuUtilPercent);
    const auto& b = from_minutes.devices[g].metric(DeviceMetric::GpuUtilPercent);
    ASSERT_TRUE(a.moments && b.moments);
    EXPECT_NEAR(a.moments->mean, b.moments->mean, 1e-9 * a.moments->mean);
    EXPECT_EQ(a.range.lo, b.range.lo);
    EXPECT_EQ(a.range.hi, b.range.hi);
  }
}

}  // namespace
}  // namespace gpuwatch::plot
