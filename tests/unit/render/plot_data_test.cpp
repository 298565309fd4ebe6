// A run reduced for plotting (plot_data.h) must give the pictures of the full
// run: the same numbers, lines that draw to the same pixels, whether the run
// is in memory or read GPU by GPU from the store.
#include "render/plot/plot_data.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/aggregate.h"
#include "runs/stored_plot.h"
#include "render/plot/plot.h"
#include "render/plot/style.h"
#include "store/stored_columns.h"
#include "../store/store_test_util.h"
#include "plot_test_util.h"

namespace gpuwatch::plot {
namespace {

using synthetic::make_run;
using synthetic::SyntheticRun;

std::size_t col(DeviceMetric m) { return static_cast<std::size_t>(m); }

// A deterministic noise in [0, 1).
double noise(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(state >> 11) / 9007199254740992.0;
}

// Long and noisy (every pixel column from near 0 to near 100 %), with a
// stopped stretch on GPU 1 (on GPU 0 when it is alone).
RunData noisy_run(std::size_t gpus = 3, double duration_s = 20'000) {
  SyntheticRun spec;
  spec.gpus = gpus;
  spec.duration_s = duration_s;
  spec.hz = 10;
  auto state = std::make_shared<std::uint64_t>(7);
  spec.util = [state](std::size_t g, double t) {
    const double busy = std::fmod(t, 3.0) < 0.3 ? 0.0 : 90.0;
    return busy + 10 * noise(*state) - 2 * static_cast<double>(g);
  };
  RunData run = make_run(spec);
  DeviceSeries& d = run.devices[std::min<std::size_t>(1, gpus - 1)];
  for (std::size_t i = 0; i < d.wall_ns.size(); ++i) {
    const double t = static_cast<double>(d.wall_ns[i] - synthetic::kStartWallNs) / 1e9;
    if (t > 12'000 && t < 13'000) {
      for (auto& column : d.values) column[i] = kNaN;
    }
  }
  return run;
}

PlotNeeds every_need() {
  PlotNeeds needs;
  needs.lines = {DeviceMetric::GpuUtilPercent, DeviceMetric::TempGpuCelsius};
  needs.moments = {DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes, DeviceMetric::TempGpuCelsius};
  needs.means = {DeviceMetric::GpuUtilPercent, DeviceMetric::SmClockMhz};
  needs.ranges = {DeviceMetric::MemTotalBytes};
  needs.histogram = DeviceMetric::GpuUtilPercent;
  return needs;
}

PlotRun reduce(const RunData& run, const PlotNeeds& needs, unsigned threads = 2) {
  return reduce_run(run_base(run), RunDataColumns(run), needs, threads);
}

void expect_same_moments(const std::optional<Moments>& a, const std::optional<Moments>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->count, b->count);
  EXPECT_EQ(a->mean, b->mean);
  EXPECT_EQ(a->std, b->std);
  EXPECT_EQ(a->min, b->min);
  EXPECT_EQ(a->max, b->max);
  EXPECT_EQ(a->span_s, b->span_s);
}

void expect_same_line(const Line& a, const Line& b) {
  ASSERT_EQ(a.t_s.size(), b.t_s.size());
  for (std::size_t i = 0; i < a.t_s.size(); ++i) {
    EXPECT_EQ(a.t_s[i], b.t_s[i]);
    EXPECT_TRUE(a.v[i] == b.v[i] || (std::isnan(a.v[i]) && std::isnan(b.v[i]))) << i;
  }
}

TEST(PlotData, NumbersComeFromEverySample) {
  const RunData run = noisy_run();
  const PlotRun reduced = reduce(run, every_need());
  ASSERT_EQ(reduced.devices.size(), run.devices.size());
  const HistogramBins bins{0, 5, 20};
  for (std::size_t g = 0; g < run.devices.size(); ++g) {
    const DeviceSeries& full = run.devices[g];
    const DeviceData& d = reduced.devices[g];
    EXPECT_EQ(d.samples, full.wall_ns.size());
    EXPECT_EQ(d.first_wall_ns, full.wall_ns.front());
    EXPECT_EQ(d.last_wall_ns, full.wall_ns.back());
    for (const DeviceMetric m : every_need().moments) {
      expect_same_moments(d.metric(m).moments, moments(full.mono_ns, full.values[col(m)]));
    }
    for (const DeviceMetric m : every_need().columns()) {
      const ValueRange range = finite_range(full.values[col(m)]);
      EXPECT_EQ(d.metric(m).range.lo, range.lo) << info(m).name;
      EXPECT_EQ(d.metric(m).range.hi, range.hi) << info(m).name;
    }
    EXPECT_EQ(time_share_histogram(d.histogram, bins),
              time_share_histogram(full.mono_ns, full.values[col(DeviceMetric::GpuUtilPercent)], bins));
    // A few thousand points per line, not 200,000.
    EXPECT_LE(d.metric(DeviceMetric::GpuUtilPercent).line.t_s.size(), 2 * every_need().line_buckets + 8);
  }
  // What was not asked for is not there.
  EXPECT_TRUE(reduced.devices[0].metric(DeviceMetric::PowerWatts).range.empty());
  EXPECT_TRUE(reduced.devices[0].metric(DeviceMetric::MemUsedBytes).line.t_s.empty());
}

TEST(PlotData, TheMeanOverGpusKeepsItsExtremes) {
  const RunData run = noisy_run();
  const PlotRun reduced = reduce(run, every_need());
  for (const DeviceMetric m : every_need().means) {
    std::vector<TimedColumn> columns;
    for (const DeviceSeries& d : run.devices) columns.push_back({d.wall_ns, d.values[col(m)]});
    std::vector<std::int64_t> t;
    std::vector<double> v;
    mean_across(columns, 50'000'000, m == DeviceMetric::SmClockMhz ? 3'000'000'000 : 300'000'000, t, v);
    const ValueRange full = finite_range(v);
    const ValueRange kept = finite_range(reduced.mean(m).v);
    EXPECT_EQ(kept.lo, full.lo) << info(m).name;
    EXPECT_EQ(kept.hi, full.hi) << info(m).name;
    // GPU 1's stopped stretch leaves the other two: no gap in the mean.
    const auto& line = reduced.mean(m);
    EXPECT_EQ(std::count_if(line.v.begin(), line.v.end(), [](double x) { return std::isnan(x); }), 0);
  }
}

// Counts the loads it passes on.
class CountingColumns final : public DeviceColumns {
 public:
  explicit CountingColumns(const RunData& run) : inner_(run) {}
  [[nodiscard]] DeviceSeries load(int index, std::span<const DeviceMetric> metrics, WallClock wall) const override {
    ++loads_;
    return inner_.load(index, metrics, wall);
  }
  [[nodiscard]] int loads() const { return loads_; }

 private:
  RunDataColumns inner_;
  mutable std::atomic<int> loads_{0};
};

TEST(PlotData, GpusOnTicksOfTheirOwnAreReadTwiceForTheirMean) {
  RunData run = noisy_run(3, 600);
  for (auto& t : run.devices[2].wall_ns) t += 60'000'000;  // 60 ms after the others: ticks of its own
  PlotNeeds needs;
  needs.means = {DeviceMetric::GpuUtilPercent};
  const CountingColumns columns(run);
  const PlotRun reduced = reduce_run(run_base(run), columns, needs);
  EXPECT_EQ(columns.loads(), 6);
  std::vector<TimedColumn> all;
  for (const DeviceSeries& d : run.devices) all.push_back({d.wall_ns, d.values[col(DeviceMetric::GpuUtilPercent)]});
  std::vector<std::int64_t> t;
  std::vector<double> v;
  mean_across(all, 50'000'000, 300'000'000, t, v);
  const Line& line = reduced.mean(DeviceMetric::GpuUtilPercent);
  EXPECT_EQ(line.t_s.size(), t.size());  // fewer samples than buckets: every tick kept
  EXPECT_EQ(finite_range(line.v).lo, finite_range(v).lo);
  EXPECT_EQ(finite_range(line.v).hi, finite_range(v).hi);

  // The recorder's case, every GPU on the same ticks: read once.
  const RunData shared = noisy_run(3, 600);
  const CountingColumns once(shared);
  (void)reduce_run(run_base(shared), once, needs);
  EXPECT_EQ(once.loads(), 3);
}

TEST(PlotData, ThreadsChangeNothing) {
  const RunData run = noisy_run(5, 3'000);
  const PlotRun one = reduce(run, every_need(), 1);
  const PlotRun two = reduce(run, every_need(), 2);
  const PlotRun four = reduce(run, every_need(), 4);
  for (const PlotRun* other : {&two, &four}) {
    for (std::size_t g = 0; g < run.devices.size(); ++g) {
      for (const DeviceMetric m : every_need().columns()) {
        expect_same_moments(one.devices[g].metric(m).moments, other->devices[g].metric(m).moments);
        expect_same_line(one.devices[g].metric(m).line, other->devices[g].metric(m).line);
      }
      EXPECT_EQ(one.devices[g].histogram.values, other->devices[g].histogram.values);
    }
    for (const DeviceMetric m : every_need().means) expect_same_line(one.mean(m), other->mean(m));
  }
}

// An error in one GPU's read stops the others and reaches the caller.
class FailingColumns final : public DeviceColumns {
 public:
  explicit FailingColumns(const RunData& run) : inner_(run) {}
  [[nodiscard]] DeviceSeries load(int index, std::span<const DeviceMetric> metrics, WallClock wall) const override {
    if (index == 2) throw StoreError("chunk unreadable");
    return inner_.load(index, metrics, wall);
  }

 private:
  RunDataColumns inner_;
};

TEST(PlotData, AReadErrorReachesTheCaller) {
  const RunData run = noisy_run(6, 600);
  for (const unsigned threads : {1u, 2u, 3u}) {
    EXPECT_THROW(reduce_run(run_base(run), FailingColumns(run), every_need(), threads), StoreError) << threads;
  }
}

// Rows of the frame's area in pixel column x where the line's colour is.
struct Extent {
  int top = -1;
  int bottom = -1;
};
Extent line_extent(Canvas& canvas, const Frame& frame, int x, Rgb color) {
  cairo_surface_t* s = canvas.surface();
  cairo_surface_flush(s);
  const unsigned char* data = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  const auto channel = [](std::uint32_t argb, int shift) { return static_cast<double>((argb >> shift) & 0xff) / 255; };
  Extent e;
  for (int y = static_cast<int>(frame.area.y); y < static_cast<int>(frame.area.bottom()); ++y) {
    std::uint32_t argb = 0;
    std::memcpy(&argb, data + static_cast<std::ptrdiff_t>(y) * stride + x * 4, 4);
    const bool near = std::abs(channel(argb, 16) - color.r) < 0.2 && std::abs(channel(argb, 8) - color.g) < 0.2 &&
                      std::abs(channel(argb, 0) - color.b) < 0.2;
    if (!near) continue;
    if (e.top < 0) e.top = y;
    e.bottom = y;
  }
  return e;
}

struct Drawn {
  std::unique_ptr<Canvas> canvas;
  PlotGeometry geometry;
};
Drawn draw(const PlotRun& run, const PlotOptions& options) {
  const PlotSize size = plot_size(options);
  Drawn d{Canvas::image(size.width_px, size.height_px), {}};
  d.geometry = render_plot(*d.canvas, {&run, 1}, options);
  return d;
}

TEST(PlotData, ReducedLinesDrawAsEverySampleDoes) {
  // One GPU: its line is not hidden under another's.
  const RunData run = noisy_run(1);
  PlotOptions options;
  options.kind = PlotKind::PerGpu;
  options.metric = DeviceMetric::GpuUtilPercent;
  PlotNeeds every_sample = plot_needs(options);
  every_sample.line_buckets = 10 * run.devices[0].wall_ns.size();  // keeps them all
  const Drawn reduced = draw(reduce(run, plot_needs(options)), options);
  const Drawn full = draw(reduce(run, every_sample), options);
  const Frame& f = reduced.geometry.panels[0].frame;
  ASSERT_EQ(f.area.x, full.geometry.panels[0].frame.area.x);
  // Each pixel column spans the same rows, within a pixel of antialiasing.
  // Where a column's lowest or highest sample shares a bucket with a more
  // extreme one just across the column's edge, the column may stop a few
  // pixels short (the line still reaches that depth at the edge): rare.
  int columns = 0;
  int short_columns = 0;
  Extent all_reduced{1 << 20, -1};
  Extent all_full{1 << 20, -1};
  for (int x = static_cast<int>(f.area.x) + 1; x < static_cast<int>(f.area.right()) - 1; ++x) {
    const Extent a = line_extent(*reduced.canvas, f, x, series_color(0));
    const Extent b = line_extent(*full.canvas, f, x, series_color(0));
    EXPECT_EQ(a.top < 0, b.top < 0) << "x=" << x;  // drawn in the same columns: gaps stay gaps
    if (a.top < 0 || b.top < 0) continue;
    ++columns;
    if (std::abs(a.top - b.top) > 1 || std::abs(a.bottom - b.bottom) > 1) ++short_columns;
    all_reduced = {std::min(all_reduced.top, a.top), std::max(all_reduced.bottom, a.bottom)};
    all_full = {std::min(all_full.top, b.top), std::max(all_full.bottom, b.bottom)};
  }
  EXPECT_GT(columns, 1000);
  EXPECT_LE(short_columns, columns / 200);
  EXPECT_EQ(all_reduced.top, all_full.top);
  EXPECT_EQ(all_reduced.bottom, all_full.bottom);
}

TEST(PlotData, ASmallRunKeepsEverySampleAndTheSamePixels) {
  // Fewer samples than buckets: every sample is kept, the pixels are the same.
  SyntheticRun spec;
  spec.gpus = 2;
  const RunData run = make_run(spec);
  for (const std::string& name : plot_kind_names()) {
    if (name == "compare") continue;
    PlotOptions options;
    options.kind = *plot_kind_by_name(name);
    PlotNeeds every_sample = plot_needs(options);
    every_sample.line_buckets = 1'000'000;
    const Drawn a = draw(reduce(run, plot_needs(options)), options);
    const Drawn b = draw(reduce(run, every_sample), options);
    cairo_surface_flush(a.canvas->surface());
    cairo_surface_flush(b.canvas->surface());
    const auto bytes = static_cast<std::size_t>(cairo_image_surface_get_stride(a.canvas->surface()) *
                                                cairo_image_surface_get_height(a.canvas->surface()));
    EXPECT_EQ(std::memcmp(cairo_image_surface_get_data(a.canvas->surface()),
                          cairo_image_surface_get_data(b.canvas->surface()), bytes),
              0)
        << name;
  }
}

bool has_text(const Canvas& canvas, const std::string& text) {
  const auto& texts = canvas.texts();
  return std::any_of(texts.begin(), texts.end(), [&](const TextBox& t) { return t.text == text; });
}

TEST(PlotData, AGpuWithoutSamplesAndAMetricWithoutAColumn) {
  RunData run = noisy_run(3, 600);
  run.devices[2].mono_ns.clear();
  run.devices[2].wall_ns.clear();
  for (auto& c : run.devices[2].values) c.clear();
  run.devices[0].values[col(DeviceMetric::PowerWatts)].clear();  // no column at all
  for (auto& d : run.devices) d.values[col(DeviceMetric::TempGpuCelsius)].clear();
  RunData other = run;
  other.run.id = "0123456789ab";
  const std::vector<RunData> pair{run, other};
  for (const std::string& name : plot_kind_names()) {
    PlotOptions options;
    options.kind = *plot_kind_by_name(name);
    auto canvas = Canvas::image(plot_size(options).width_px, plot_size(options).height_px);
    const std::span<const RunData> runs = std::span(pair).first(options.kind == PlotKind::Compare ? 2 : 1);
    EXPECT_NO_THROW(render_plot(*canvas, runs, options)) << name;
    if (options.kind == PlotKind::Timeline) {
      EXPECT_TRUE(has_text(*canvas, "no data: no GPU reported temp_gpu_celsius"));
    }
  }
  PlotOptions options;
  options.kind = PlotKind::PerGpu;
  auto canvas = Canvas::image(1600, 900);
  render_plot(*canvas, {&run, 1}, options);
  EXPECT_TRUE(has_text(*canvas, "no data: GPU 2 reported no mem_used_bytes"));
  const PlotRun reduced = reduce(run, every_need());
  EXPECT_EQ(reduced.devices[2].samples, 0u);
  EXPECT_FALSE(reduced.devices[2].metric(DeviceMetric::GpuUtilPercent).moments);
  EXPECT_TRUE(reduced.devices[2].histogram.values.empty());
}

class StoredPlotData : public store_test::StoreTest {};

TEST_F(StoredPlotData, AStoredRunReadsAsTheSameRunInMemory) {
  RunInfo run = new_run("stored");
  {
    auto store = Store::open(path_, false);
    store->begin_run(run, two_devices());
    for (std::int64_t i = 0; i < 3000; ++i) {
      for (int dev = 0; dev < 2; ++dev) store->append(device_sample(dev, i));
      if (i % 10 == 9) store->flush();
    }
    store->finish_run(run);
  }
  auto store = Store::open(path_, true);
  const RunInfo stored = store->resolve("stored");
  const RunData whole = store->load(stored);
  const PlotNeeds needs = every_need();
  const PlotRun from_memory = reduce_run(run_base(whole), RunDataColumns(whole), needs);
  const PlotRun from_store = reduce_run(load_run_base(*store, stored), StoredColumns(path_, stored), needs);
  ASSERT_EQ(from_store.devices.size(), 2u);
  EXPECT_EQ(from_store.base.devices[1].info.uuid, "GPU-1");
  for (std::size_t g = 0; g < 2; ++g) {
    EXPECT_EQ(from_store.devices[g].samples, 3000u);
    for (const DeviceMetric m : needs.columns()) {
      expect_same_moments(from_store.devices[g].metric(m).moments, from_memory.devices[g].metric(m).moments);
      expect_same_line(from_store.devices[g].metric(m).line, from_memory.devices[g].metric(m).line);
    }
  }
  for (const DeviceMetric m : needs.means) expect_same_line(from_store.mean(m), from_memory.mean(m));

  PlotOptions options;
  options.kind = PlotKind::PerGpu;
  options.metric = DeviceMetric::GpuUtilPercent;
  write_stored_run_plot(path_, stored, options, dir_ / "stored.png");
  EXPECT_GT(std::filesystem::file_size(dir_ / "stored.png"), 1000u);
}

}  // namespace
}  // namespace gpuwatch::plot
