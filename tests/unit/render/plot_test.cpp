// Plots are checked in their pixels: a line is where the data put it, axes
// and legend are there, no two pieces of text overlap; and the files come out
// in the format their names ask for.
#include "render/plot/plot.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "render/plot/page.h"
#include "render/plot/style.h"
#include "render/units.h"
#include "plot_pixels.h"
#include "plot_test_util.h"

namespace gpuwatch::plot {
namespace {

using synthetic::make_run;
using synthetic::SyntheticRun;

constexpr std::size_t kUtil = static_cast<std::size_t>(DeviceMetric::GpuUtilPercent);

using test_pixels::blend_on_white;
using test_pixels::Pixels;

struct Rendered {
  std::unique_ptr<Canvas> canvas;
  PlotGeometry geometry;
};

Rendered render(std::span<const RunData> runs, PlotOptions options) {
  const PlotSize size = plot_size(options);
  Rendered r{Canvas::image(size.width_px, size.height_px), {}};
  r.geometry = render_plot(*r.canvas, runs, options);
  return r;
}

Rendered render(const RunData& run, PlotKind kind) {
  PlotOptions options;
  options.kind = kind;
  return render({&run, 1}, options);
}

// Utilization 50 % for the first half of a 10-minute run, then 100 %.
RunData step_run(std::size_t gpus = 1) {
  SyntheticRun spec;
  spec.gpus = gpus;
  spec.util = [](std::size_t g, double t) { return t < 300 ? 50.0 - 20.0 * static_cast<double>(g) : 100.0; };
  return make_run(spec);
}

TEST(PlotScale, NiceStepsAndLabels) {
  EXPECT_DOUBLE_EQ(nice_step(100, 5), 20);
  EXPECT_DOUBLE_EQ(nice_step(100, 10), 10);
  EXPECT_DOUBLE_EQ(nice_step(0.7, 7), 0.1);
  const Scale s = value_scale(0, 87, 5, true);
  EXPECT_EQ(s.labels, (std::vector<std::string>{"0", "20", "40", "60", "80", "100"}));
  EXPECT_LT(s.lo, 0);   // room below the 0 line
  EXPECT_GT(s.hi, 100);
  const Scale fine = value_scale(0.2, 0.9, 7, false);
  EXPECT_EQ(fine.labels.front(), "0.2");
  EXPECT_EQ(fine.labels.back(), "0.9");
  const Scale flat = value_scale(42, 42, 5, false);  // one value still gets an axis around it
  EXPECT_LT(flat.ticks.front(), 42);
  EXPECT_GT(flat.ticks.back(), 42);
  EXPECT_EQ(format_number(-0.0001, 1), "0.0");
}

TEST(PlotScale, TimeAxisSpeaksInSecondsMinutesOrHours) {
  const TimeScale seconds = time_scale(42, 10);
  EXPECT_EQ(seconds.title, "Elapsed time (s)");
  EXPECT_EQ(seconds.scale.labels[1], "5");
  const TimeScale minutes = time_scale(600, 10);
  EXPECT_EQ(minutes.title, "Elapsed time (m:ss)");
  EXPECT_EQ(minutes.scale.labels[1], "1:00");
  const TimeScale hours = time_scale(35 * 3600, 8);
  EXPECT_EQ(hours.title, "Elapsed time (h:mm)");
  EXPECT_EQ(hours.scale.labels[1], "6:00");
  EXPECT_DOUBLE_EQ(hours.scale.hi, 35 * 3600);
  const TimeScale odd = time_scale(3 * 3600 + 10, 2000);  // very many ticks: 1 s steps need seconds
  EXPECT_EQ(odd.title, "Elapsed time (h:mm:ss)");
}

TEST(PlotScale, BytesShowInBinaryUnits) {
  EXPECT_EQ(display_unit("B", 80 * kGiB).symbol, "GiB");
  EXPECT_DOUBLE_EQ(display_unit("B", 80 * kGiB).divisor, kGiB);
  EXPECT_EQ(display_unit("B", 300 * kMiB).symbol, "MiB");
  EXPECT_EQ(display_unit("B/s", 2 * kGiB).symbol, "GiB/s");
  EXPECT_EQ(display_unit("J", 5e4).symbol, "kJ");
  EXPECT_EQ(display_unit("J", 5e6).symbol, "MJ");
  EXPECT_EQ(display_unit("W", 700).symbol, "W");
}

TEST(PlotLayout, SeedGridShapes) {
  const auto shape = [](std::size_t n) {
    const GridShape g = seed_grid(n);
    return std::to_string(g.rows) + "x" + std::to_string(g.cols);
  };
  EXPECT_EQ(shape(1), "1x1");
  EXPECT_EQ(shape(2), "1x2");
  EXPECT_EQ(shape(3), "2x2");
  EXPECT_EQ(shape(4), "2x2");
  EXPECT_EQ(shape(6), "2x3");
  EXPECT_EQ(shape(8), "2x4");
  EXPECT_EQ(shape(12), "3x4");
}

TEST(PlotPixels, TimelineDrawsTheLineWhereTheDataPutIt) {
  const RunData run = step_run();
  const Rendered r = render(run, PlotKind::Timeline);
  const Pixels px(*r.canvas);
  ASSERT_EQ(r.geometry.panels.size(), 5u);
  const PanelGeometry& util = r.geometry.panels[0];
  const Rgb blue = series_color(0);
  for (const double t : {60.0, 150.0, 250.0}) {
    EXPECT_TRUE(px.near(util.x_px(t), util.y_px(50), blue)) << "t=" << t;
    EXPECT_FALSE(px.near(util.x_px(t), util.y_px(100), blue, 4)) << "t=" << t;
  }
  for (const double t : {350.0, 450.0, 590.0}) {
    EXPECT_TRUE(px.near(util.x_px(t), util.y_px(100), blue)) << "t=" << t;
    EXPECT_FALSE(px.near(util.x_px(t), util.y_px(50), blue, 4)) << "t=" << t;
  }
  // Power follows utilization in the synthetic run: 120 + 5.8 × 50 = 410 W.
  const PanelGeometry& power = r.geometry.panels[2];
  EXPECT_TRUE(px.near(power.x_px(150), power.y_px(410), blue));
  // Memory is shown in GiB: 40 GiB after the first minute.
  const PanelGeometry& memory = r.geometry.panels[1];
  EXPECT_DOUBLE_EQ(memory.y_divisor, kGiB);
  EXPECT_TRUE(px.near(memory.x_px(200), memory.y_px(40 * kGiB), blue));
  // Temperature is read every tenth tick only: still one unbroken line.
  const PanelGeometry& temp = r.geometry.panels[3];
  for (double t = 20; t < 290; t += 7) {
    EXPECT_TRUE(px.near(temp.x_px(t), temp.y_px(35 + 0.3 * 50), blue)) << "t=" << t;
  }
}

TEST(PlotPixels, EachGpuHasItsColourAtItsLevel) {
  const RunData run = step_run(2);  // GPU 0 at 50 %, GPU 1 at 30 % in the first half
  const Rendered r = render(run, PlotKind::Timeline);
  const Pixels px(*r.canvas);
  const PanelGeometry& util = r.geometry.panels[0];
  EXPECT_TRUE(px.near(util.x_px(200), util.y_px(50), series_color(0)));
  EXPECT_TRUE(px.near(util.x_px(200), util.y_px(30), series_color(1)));
  EXPECT_FALSE(px.near(util.x_px(200), util.y_px(30), series_color(0), 3));
}

TEST(PlotPixels, AxesAndLegendArePresent) {
  const RunData run = step_run(2);
  const Rendered r = render(run, PlotKind::Timeline);
  const Pixels px(*r.canvas);
  for (const PanelGeometry& p : r.geometry.panels) {
    const Rect& a = p.frame.area;
    // The frame's left and bottom edges, in the axis colour (a data line
    // may cross an edge here and there).
    int left = 0;
    int bottom = 0;
    for (const double f : {0.1, 0.35, 0.6, 0.85}) {
      left += px.any_in({a.x - 1.5, a.y + a.h * f, 3, 1}, colors::kAxis) ? 1 : 0;
      bottom += px.any_in({a.x + a.w * f, a.bottom() - 1.5, 1, 3}, colors::kAxis) ? 1 : 0;
    }
    EXPECT_GE(left, 3) << p.frame.title;
    EXPECT_GE(bottom, 3) << p.frame.title;
    EXPECT_FALSE(p.frame.y.labels.empty());
    EXPECT_FALSE(p.frame.y_title.empty());
  }
  EXPECT_EQ(r.geometry.panels.back().frame.x_title, "Elapsed time (m:ss)");
  ASSERT_GE(r.geometry.legend.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const LegendItem& item = r.geometry.legend[i];
    EXPECT_EQ(item.entry.label, "GPU " + std::to_string(i));
    EXPECT_TRUE(px.any_in(item.swatch, series_color(i))) << item.entry.label;
    // The legend is outside every plot area.
    for (const PanelGeometry& p : r.geometry.panels) EXPECT_FALSE(item.label.overlaps(p.frame.area));
  }
}

TEST(PlotPixels, AGapStaysAGapAndASpikeSurvives) {
  SyntheticRun spec;
  spec.gpus = 1;
  spec.duration_s = 20'000;
  spec.hz = 10;  // 200,001 samples on ~1,500 pixel columns
  spec.util = [](std::size_t, double t) { return std::abs(t - 5000) < 0.05 ? 100.0 : 20.0; };
  RunData run = make_run(spec);
  // No samples at all from 12,000 s to 14,000 s: the recorder was stopped.
  DeviceSeries& d = run.devices[0];
  for (std::size_t i = 0; i < d.wall_ns.size(); ++i) {
    const double t = static_cast<double>(d.wall_ns[i] - synthetic::kStartWallNs) / 1e9;
    if (t > 12'000 && t < 14'000) {
      for (auto& column : d.values) column[i] = kNaN;
    }
  }
  const Rendered r = render(run, PlotKind::Timeline);
  const Pixels px(*r.canvas);
  const PanelGeometry& util = r.geometry.panels[0];
  const Rgb blue = series_color(0);
  EXPECT_TRUE(px.near(util.x_px(5000), util.y_px(100), blue));  // one sample in 200,000
  EXPECT_TRUE(px.near(util.x_px(11'000), util.y_px(20), blue));
  EXPECT_FALSE(px.near(util.x_px(13'000), util.y_px(20), blue, 3));
  EXPECT_TRUE(px.near(util.x_px(15'000), util.y_px(20), blue));
}

TEST(PlotPixels, PerGpuPanelsFollowTheSeedGrid) {
  SyntheticRun spec;
  spec.gpus = 6;
  const RunData run = make_run(spec);
  const Rendered r = render(run, PlotKind::PerGpu);
  ASSERT_EQ(r.geometry.panels.size(), 6u);
  // 2 rows of 3; each panel's line in its GPU's colour at 40 + 2g GiB.
  const Pixels px(*r.canvas);
  EXPECT_DOUBLE_EQ(r.geometry.panels[0].frame.area.y, r.geometry.panels[2].frame.area.y);
  EXPECT_GT(r.geometry.panels[3].frame.area.y, r.geometry.panels[0].frame.area.bottom());
  for (std::size_t g = 0; g < 6; ++g) {
    const PanelGeometry& p = r.geometry.panels[g];
    EXPECT_TRUE(px.near(p.x_px(400), p.y_px((40 + 2 * static_cast<double>(g)) * kGiB), series_color(g))) << g;
  }
}

TEST(PlotPixels, BalanceBarsReachEachGpusMean) {
  SyntheticRun spec;
  spec.gpus = 4;
  spec.util = [](std::size_t g, double) { return 40.0 + 10.0 * static_cast<double>(g); };
  const RunData run = make_run(spec);
  const Rendered r = render(run, PlotKind::Balance);
  ASSERT_EQ(r.geometry.panels.size(), 3u);
  const Pixels px(*r.canvas);
  const PanelGeometry& util = r.geometry.panels[0];
  for (std::size_t g = 0; g < 4; ++g) {
    const double mean = 40.0 + 10.0 * static_cast<double>(g);
    const double x = util.x_px(static_cast<double>(g)) - 10;  // beside the whisker
    const Rgb fill = blend_on_white(series_color(g), 0.85);
    EXPECT_TRUE(Pixels::close(px.at(x, util.y_px(mean) + 3), fill)) << g;
    EXPECT_FALSE(Pixels::close(px.at(x, util.y_px(mean) - 3), fill)) << g;
  }
  // CV of 40, 50, 60, 70: std 11.18 / mean 55 = 20.3 %, above the 20 % line.
  const PanelGeometry& cv = r.geometry.panels[2];
  EXPECT_EQ(cv.frame.x.labels.front(), "GPU utilization");
  EXPECT_TRUE(px.near(cv.x_px(0) - 10, cv.y_px(19.5), blend_on_white(rgb_hex(0x6a6a6a), 0.85), 0));
  EXPECT_FALSE(px.near(cv.x_px(0) - 10, cv.y_px(21.5), blend_on_white(rgb_hex(0x6a6a6a), 0.85), 0));
}

TEST(PlotPixels, HistogramStepsAtTheTimeShares) {
  const RunData run = step_run();  // half the time at 50 %, half at 100 %
  const Rendered r = render(run, PlotKind::Histogram);
  const Pixels px(*r.canvas);
  const PanelGeometry& p = r.geometry.panels[0];
  // Bins of 5 %: [50, 55) and [95, 100] each hold half the time.
  EXPECT_TRUE(px.near(p.x_px(52.5), p.y_px(50), series_color(0)));
  EXPECT_TRUE(px.near(p.x_px(97.5), p.y_px(50), series_color(0)));
  EXPECT_FALSE(px.near(p.x_px(72.5), p.y_px(50), series_color(0), 4));
}

TEST(PlotPixels, CompareOverlaysRunsOnTheirOwnElapsedTime) {
  SyntheticRun a;
  a.gpus = 2;
  a.util = [](std::size_t g, double) { return g == 0 ? 20.0 : 40.0; };  // mean 30
  SyntheticRun b;
  b.gpus = 1;
  b.duration_s = 300;
  b.util = [](std::size_t, double) { return 80.0; };
  std::vector<RunData> runs{make_run(a, "aaaaaaaaaaaa", "a"), make_run(b, "bbbbbbbbbbbb", "b")};
  runs[1].run.start_wall_ns += 86'400'000'000'000;  // a day later: time is counted from each start
  for (auto& d : runs[1].devices) {
    for (auto& w : d.wall_ns) w += 86'400'000'000'000;
  }
  PlotOptions options;
  options.kind = PlotKind::Compare;
  options.metric = DeviceMetric::GpuUtilPercent;
  const Rendered r = render(runs, options);
  ASSERT_EQ(r.geometry.panels.size(), 2u);  // one line panel, one bar panel
  const Pixels px(*r.canvas);
  const PanelGeometry& lines = r.geometry.panels[0];
  EXPECT_TRUE(px.near(lines.x_px(200), lines.y_px(30), series_color(0)));  // mean over the two GPUs
  EXPECT_TRUE(px.near(lines.x_px(200), lines.y_px(80), series_color(1)));
  EXPECT_FALSE(px.near(lines.x_px(450), lines.y_px(80), series_color(1), 3));  // run b ended at 300 s
  const PanelGeometry& bars = r.geometry.panels[1];
  EXPECT_TRUE(Pixels::close(px.at(bars.x_px(1) - 10, bars.y_px(78)), blend_on_white(series_color(1), 0.85)));
}

// Every kind, with 1, 2 and 8 GPUs and a crowd of events: no text on text,
// none outside the picture.
TEST(PlotText, NoTwoLabelsOverlapInAnyKind) {
  for (const std::size_t gpus : {1u, 2u, 8u}) {
    SyntheticRun spec;
    spec.gpus = gpus;
    spec.duration_s = 35 * 3600;
    spec.hz = 0.05;
    RunData run = make_run(spec, "0123456789ab", "a-rather-long-run-name-for-a-title");
    for (int e = 0; e < 60; ++e) {
      Event ev;
      ev.time.wall_ns = synthetic::kStartWallNs + static_cast<std::int64_t>(e) * 1'900'000'000'000;
      ev.kind = "annotation";
      ev.message = "epoch " + std::to_string(e) + " loss 1.234";
      if (e % 7 == 0) ev.device_index = static_cast<int>(static_cast<std::size_t>(e) % gpus);
      run.events.push_back(ev);
    }
    RunData other = run;
    other.run.id = "ba9876543210";
    std::vector<RunData> pair{run, other};
    for (const std::string& name : plot_kind_names()) {
      PlotOptions options;
      options.kind = *plot_kind_by_name(name);
      for (const PlotSize size : {plot_size(options), PlotSize{640, 480}}) {
        options.width_px = size.width_px;
        options.height_px = size.height_px;
        const PlotSize s = plot_size(options);
        auto canvas = Canvas::image(s.width_px, s.height_px);
        if (options.kind == PlotKind::Compare) {
          render_plot(*canvas, pair, options);
        } else {
          render_plot(*canvas, {&run, 1}, options);
        }
        const auto& texts = canvas->texts();
        const Rect page{0, 0, canvas->width(), canvas->height()};
        const std::string where = name + " " + std::to_string(gpus) + " GPUs " + std::to_string(s.width_px) + "x" +
                                  std::to_string(s.height_px) + ": '";
        for (std::size_t i = 0; i < texts.size(); ++i) {
          EXPECT_TRUE(page.contains(texts[i].box)) << where << texts[i].text << "' leaves the page";
          for (std::size_t j = i + 1; j < texts.size(); ++j) {
            EXPECT_FALSE(texts[i].box.overlaps(texts[j].box))
                << where << texts[i].text << "' overlaps '" << texts[j].text << "'";
          }
        }
      }
    }
  }
}

bool has_text(const Canvas& canvas, const std::string& text) {
  const auto& texts = canvas.texts();
  return std::any_of(texts.begin(), texts.end(), [&](const TextBox& t) { return t.text == text; });
}

TEST(PlotText, EventsAreMarkedAndLabelled) {
  RunData run = step_run(2);
  Event epoch;
  epoch.time.wall_ns = synthetic::kStartWallNs + 100'000'000'000;
  epoch.kind = "annotation";
  epoch.message = "epoch 1";
  Event lost;
  lost.time.wall_ns = synthetic::kStartWallNs + 400'000'000'000;
  lost.kind = "gpu_lost";
  lost.device_index = 1;
  lost.message = "the GPU stopped answering";
  run.events = {epoch, lost};
  const Rendered r = render(run, PlotKind::Timeline);
  EXPECT_TRUE(has_text(*r.canvas, "epoch 1"));
  EXPECT_TRUE(has_text(*r.canvas, "GPU 1: the GPU stopped answering"));
  // A dotted line across every panel: grey for the run, GPU 1's colour for its loss.
  const Pixels px(*r.canvas);
  for (const PanelGeometry& p : r.geometry.panels) {
    const Rect& a = p.frame.area;
    EXPECT_TRUE(px.any_in({p.x_px(100) - 1, a.y, 2, a.h}, colors::kEvent)) << p.frame.title;
    EXPECT_TRUE(px.any_in({p.x_px(400) - 1, a.y, 2, a.h}, series_color(1))) << p.frame.title;
  }
  // The labels sit in the band above the first panel, not on the data.
  for (const TextBox& t : r.canvas->texts()) {
    if (t.text == "epoch 1") {
      EXPECT_LE(t.box.bottom(), r.geometry.panels[0].frame.area.y);
    }
  }
}

TEST(PlotData, MissingMetricsGiveNoDataPanelsNotCrashes) {
  RunData run = step_run(2);
  for (auto& d : run.devices) {
    std::fill(d.values[static_cast<std::size_t>(DeviceMetric::TempGpuCelsius)].begin(),
              d.values[static_cast<std::size_t>(DeviceMetric::TempGpuCelsius)].end(), kNaN);
    d.values[static_cast<std::size_t>(DeviceMetric::SmClockMhz)].clear();  // no column at all
  }
  run.devices[1].values[kUtil].assign(run.devices[1].wall_ns.size(), kNaN);
  for (const std::string& name : plot_kind_names()) {
    if (name == "compare") continue;
    EXPECT_NO_THROW(render(run, *plot_kind_by_name(name))) << name;
  }
  const Rendered timeline = render(run, PlotKind::Timeline);
  EXPECT_TRUE(has_text(*timeline.canvas, "no data: no GPU reported temp_gpu_celsius"));
  EXPECT_TRUE(has_text(*timeline.canvas, "no data: no GPU reported sm_clock_mhz"));
  const Rendered per_gpu = render(run, PlotKind::Histogram);
  EXPECT_FALSE(has_text(*per_gpu.canvas, "no data: no GPU reported gpu_util_percent"));  // GPU 0 has it
  PlotOptions options;
  options.kind = PlotKind::PerGpu;
  options.metric = DeviceMetric::FanPercent;  // no GPU has it
  EXPECT_TRUE(has_text(*render({&run, 1}, options).canvas, "no data: GPU 1 reported no fan_percent"));
  options.kind = PlotKind::Histogram;
  EXPECT_NO_THROW(render({&run, 1}, options));
}

TEST(PlotData, RequestsThatCannotBeDrawnAreClearErrors) {
  const RunData run = step_run();
  const std::vector<RunData> two{run, run};
  auto canvas = Canvas::image(800, 600);
  PlotOptions options;
  EXPECT_THROW(render_plot(*canvas, two, options), PlotError);  // timeline takes one run
  options.kind = PlotKind::Compare;
  EXPECT_THROW(render_plot(*canvas, {&run, 1}, options), PlotError);
  options.kind = PlotKind::Balance;
  options.metric = DeviceMetric::PowerWatts;
  EXPECT_THROW(render_plot(*canvas, {&run, 1}, options), PlotError);
  options = {};
  options.width_px = 100;
  EXPECT_THROW(check_plot_request(1, options), PlotError);
  options.width_px = 100'000;
  EXPECT_THROW(check_plot_request(1, options), PlotError);

  RunData empty;
  empty.run.id = "ffffffffffff";
  empty.devices.resize(2);
  try {
    render_plot(*canvas, {&empty, 1}, PlotOptions{});
    ADD_FAILURE() << "no error";
  } catch (const PlotError& e) {
    EXPECT_STREQ(e.what(), "run ffffffffffff has no GPU samples to plot");
  }
  EXPECT_EQ(plottable_metric_by_name("clock_event_reasons"), std::nullopt);
  EXPECT_EQ(plottable_metric_by_name("power_watts"), DeviceMetric::PowerWatts);
}

class PlotFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("gpuwatch-plot-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static std::string head(const std::filesystem::path& p, std::size_t n) {
    std::ifstream in(p, std::ios::binary);
    std::string s(n, '\0');
    in.read(s.data(), static_cast<std::streamsize>(n));
    s.resize(static_cast<std::size_t>(in.gcount()));
    return s;
  }
  std::filesystem::path dir_;
};

TEST_F(PlotFiles, EachFormatStartsWithItsMagic) {
  const RunData run = step_run(2);
  PlotOptions options;
  options.width_px = 800;
  options.height_px = 700;
  write_plot({&run, 1}, options, dir_ / "a.png");
  write_plot({&run, 1}, options, dir_ / "a.SVG");
  write_plot({&run, 1}, options, dir_ / "a.pdf");
  EXPECT_EQ(head(dir_ / "a.png", 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(head(dir_ / "a.SVG", 5), "<?xml");
  EXPECT_NE(head(dir_ / "a.SVG", 400).find("<svg"), std::string::npos);
  EXPECT_EQ(head(dir_ / "a.pdf", 5), "%PDF-");
  for (const char* name : {"a.png", "a.SVG", "a.pdf"}) EXPECT_GT(std::filesystem::file_size(dir_ / name), 1000u);

  // The PNG reads back at the size asked for, with the line where it belongs.
  cairo_surface_t* png = cairo_image_surface_create_from_png((dir_ / "a.png").c_str());
  ASSERT_EQ(cairo_surface_status(png), CAIRO_STATUS_SUCCESS);
  EXPECT_EQ(cairo_image_surface_get_width(png), 800);
  EXPECT_EQ(cairo_image_surface_get_height(png), 700);
  cairo_surface_destroy(png);
}

TEST_F(PlotFiles, AnUnknownExtensionIsAnErrorAndWritesNothing) {
  const RunData run = step_run();
  for (const char* name : {"plot.jpg", "plot", "plot.png.txt"}) {
    try {
      write_plot({&run, 1}, PlotOptions{}, dir_ / name);
      ADD_FAILURE() << name << ": no error";
    } catch (const PlotError& e) {
      EXPECT_NE(std::string(e.what()).find(".png, .svg or .pdf"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
  EXPECT_THROW(write_plot({&run, 1}, PlotOptions{}, dir_ / "no-such-dir" / "a.png"), std::runtime_error);
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

}  // namespace
}  // namespace gpuwatch::plot
