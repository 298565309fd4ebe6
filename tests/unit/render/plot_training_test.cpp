// Issue 26: the training beside its GPUs in the pictures (a panel per
// logged scalar group, steps/s or samples/s; compare's loss curves, aligned
// by step), and markers that say what they mean (an epoch's label is never
// hidden by an end at the same moment; the recorder's own events are not
// drawn; marks get a triangle). Checked in the pixels and the texts drawn.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "render/plot/plot.h"
#include "render/plot/style.h"
#include "plot_pixels.h"
#include "plot_test_util.h"

namespace gpuwatch::plot {
namespace {

using synthetic::make_run;
using synthetic::SyntheticRun;
using test_pixels::Pixels;

Event event_at(double t_s, std::string kind, std::string message) {
  Event e;
  e.time.wall_ns = synthetic::kStartWallNs + static_cast<std::int64_t>(t_s * 1e9);
  e.time.mono_ns = 1'000'000'000 + static_cast<std::int64_t>(t_s * 1e9);
  e.kind = std::move(kind);
  e.message = std::move(message);
  return e;
}

// A 600 s run of 2 GPUs that steps `steps_per_s` times a second and logs its
// loss (2 at step 0, falling 1 per 2000 steps) and lr every second, and a
// validation loss 0.2 above it every 100 s.
RunData trained_run(double steps_per_s, const std::string& id = "abcdef123456") {
  RunData run = make_run(SyntheticRun{}, id, "train-" + id.substr(0, 1));
  for (int t = 0; t <= 600; ++t) {
    const double step = steps_per_s * t;
    const double loss = 2 - step / 2000;
    run.events.push_back(event_at(t, "step", std::to_string(static_cast<long>(step))));
    run.events.push_back(event_at(t, "log", fmt::format("loss={} lr=0.001", loss)));
    if (t % 100 == 50) run.events.push_back(event_at(t, "log", fmt::format("val_loss={}", loss + 0.2)));
  }
  return run;
}

struct Drawn {
  std::unique_ptr<Canvas> canvas;
  PlotGeometry geometry;
  PlotSize size;
};

Drawn draw(std::span<const RunData> runs, const PlotOptions& options) {
  std::vector<PlotRun> read;
  for (const RunData& r : runs) read.push_back(read_for_plot(run_base(r), RunDataColumns(r), options));
  Drawn d;
  d.size = plot_size(options, read);
  d.canvas = Canvas::image(d.size.width_px, d.size.height_px);
  d.geometry = render_plot(*d.canvas, read, options);
  return d;
}

Drawn draw_timeline(const RunData& run) {
  PlotOptions options;
  options.kind = PlotKind::Timeline;
  return draw({&run, 1}, options);
}

const TextBox* text_with(const Canvas& canvas, const std::string& part) {
  for (const TextBox& t : canvas.texts()) {
    if (t.text.find(part) != std::string::npos) return &t;
  }
  return nullptr;
}

// Whether a pixel of the panel near x (within 3 columns) at value y has the colour.
// Pixels of the event colour in the area's column at x.
double event_pixels(const Pixels& px, const Rect& area, double x) {
  double n = 0;
  const double column = std::floor(x) + 0.5;
  for (double y = area.y + 8; y < area.bottom(); ++y) n += Pixels::close(px.at(column, y), colors::kEvent) ? 1 : 0;
  return n;
}

bool drawn_near(const Pixels& px, const PanelGeometry& p, double x, double y, Rgb color) {
  return px.any_in({p.x_px(x) - 3, p.y_px(y) - 3, 7, 7}, color);
}

TEST(PlotTraining, TimelineGrowsALossPanelWithValidationOverlaidAndStepsPerSecond) {
  const Drawn d = draw_timeline(trained_run(5));
  // loss (with val_loss), lr, steps/s under the five GPU panels.
  ASSERT_EQ(d.geometry.panels.size(), 8u);
  EXPECT_EQ(d.size.height_px, default_size(PlotKind::Timeline).height_px + 3 * 230);
  EXPECT_NE(text_with(*d.canvas, "loss, val_loss (dashed)"), nullptr);
  EXPECT_NE(text_with(*d.canvas, "steps/s"), nullptr);
  EXPECT_NE(text_with(*d.canvas, "training: val"), nullptr);  // the legend
  const Pixels px(*d.canvas);
  const PanelGeometry& loss = d.geometry.panels[5];
  EXPECT_TRUE(drawn_near(px, loss, 300, 2 - 1500.0 / 2000, colors::kTrain));
  EXPECT_FALSE(drawn_near(px, loss, 300, 1.9, colors::kTrain));
  EXPECT_TRUE(drawn_near(px, loss, 350, 2 - 1750.0 / 2000 + 0.2, colors::kVal));
  const PanelGeometry& rate = d.geometry.panels[7];
  EXPECT_TRUE(drawn_near(px, rate, 300, 5, colors::kTrain));
  EXPECT_FALSE(drawn_near(px, rate, 300, 2, colors::kTrain));
  // The training panels share the GPUs' time axis.
  EXPECT_DOUBLE_EQ(loss.x_px(300), d.geometry.panels[0].x_px(300));
}

TEST(PlotTraining, ALoggedBatchSizeMakesSamplesPerSecond) {
  RunData run = trained_run(5);
  run.events.push_back(event_at(0, "log", "batch_size=32"));
  const Drawn d = draw_timeline(run);
  EXPECT_NE(text_with(*d.canvas, "samples/s"), nullptr);
  EXPECT_EQ(text_with(*d.canvas, "steps/s"), nullptr);
  const Pixels px(*d.canvas);
  EXPECT_TRUE(drawn_near(px, d.geometry.panels.back(), 300, 160, colors::kTrain));
}

TEST(PlotTraining, TheDataWaitShareWhenTheLoopMeasuresIt) {
  RunData run = make_run(SyntheticRun{});
  for (int t = 1; t <= 600; ++t) {
    run.events.push_back(event_at(t, "log", "data_wait_s=0.25 step_time_s=1 timed_steps=5"));
  }
  const Drawn d = draw_timeline(run);
  ASSERT_EQ(d.geometry.panels.size(), 6u);  // the timing names are no scalars: only the share
  EXPECT_NE(text_with(*d.canvas, "data wait (% of step time)"), nullptr);
  const Pixels px(*d.canvas);
  EXPECT_TRUE(drawn_near(px, d.geometry.panels.back(), 300, 25, colors::kTrain));
  EXPECT_FALSE(drawn_near(px, d.geometry.panels.back(), 300, 60, colors::kTrain));
}

TEST(PlotTraining, ARunWithoutAnnotationsKeepsItsPicture) {
  const Drawn d = draw_timeline(make_run(SyntheticRun{}));
  EXPECT_EQ(d.geometry.panels.size(), 5u);
  EXPECT_EQ(d.size.height_px, default_size(PlotKind::Timeline).height_px);
}

// At every epoch boundary a phase ends, an epoch ends, the next epoch and a
// phase start, within milliseconds: the label says "epoch 2 · train", never
// "ends".
TEST(PlotMarkers, AnEpochsLabelIsNeverHiddenByAnEndAtItsPlace) {
  RunData run = make_run(SyntheticRun{});
  for (int epoch = 1; epoch <= 6; ++epoch) {
    const double start = (epoch - 1) * 100.0;
    if (epoch > 1) {
      run.events.push_back(event_at(start, "phase", ""));
      run.events.push_back(event_at(start + 0.001, "epoch", ""));
    }
    run.events.push_back(event_at(start + 0.002, "epoch", std::to_string(epoch)));
    run.events.push_back(event_at(start + 0.003, "phase", "train"));
    run.events.push_back(event_at(start + 80, "phase", "val"));
  }
  const Drawn d = draw_timeline(run);
  for (int epoch = 1; epoch <= 6; ++epoch) {
    const std::string label = "epoch " + std::to_string(epoch) + " \u00b7 train";
    const TextBox* box = text_with(*d.canvas, label);
    ASSERT_NE(box, nullptr) << label;
    // Drawn, in the band above the first panel, beside its marker.
    const PanelGeometry& top = d.geometry.panels[0];
    EXPECT_LE(box->box.bottom(), top.frame.area.y);
    EXPECT_NEAR(box->box.x, top.x_px((epoch - 1) * 100.0), 6);
    EXPECT_TRUE(Pixels(*d.canvas).any_in(box->box, colors::kText));
  }
  EXPECT_NE(text_with(*d.canvas, "val"), nullptr);
  EXPECT_EQ(text_with(*d.canvas, "ends"), nullptr);
}

TEST(PlotMarkers, TheRecordersOwnEventsAreNotDrawnAndMarksAre) {
  RunData run = make_run(SyntheticRun{});
  run.events.push_back(event_at(200, "job_gpus", "source=process_tree gpus=0,1"));
  run.events.push_back(event_at(250, "advisor_config", "[util]"));
  run.events.push_back(event_at(400, "mark", "checkpoint saved"));
  const Drawn d = draw_timeline(run);
  EXPECT_EQ(text_with(*d.canvas, "job_gpus"), nullptr);
  EXPECT_EQ(text_with(*d.canvas, "source=process_tree"), nullptr);
  EXPECT_NE(text_with(*d.canvas, "checkpoint saved"), nullptr);
  const Pixels px(*d.canvas);
  for (const PanelGeometry& p : d.geometry.panels) {
    const Rect& a = p.frame.area;
    // A dotted marker line where the mark is, none where the internal events
    // were (a dashed reference line crossing the column is a pixel or two).
    EXPECT_LT(event_pixels(px, a, p.x_px(200)), 4) << p.frame.title;
    EXPECT_LT(event_pixels(px, a, p.x_px(250)), 4) << p.frame.title;
    EXPECT_GT(event_pixels(px, a, p.x_px(400)), a.h / 6) << p.frame.title;  // dots: 2 px of every 5
    // The mark's triangle hangs from the top edge, wider than its line.
    const double x = std::floor(p.x_px(400)) + 0.5;
    EXPECT_TRUE(px.any_in({x - 1.5, a.y + 2, 1, 1}, colors::kEvent)) << p.frame.title;
    EXPECT_TRUE(px.any_in({x + 1.5, a.y + 2, 1, 1}, colors::kEvent)) << p.frame.title;
  }
}

TEST(PlotCompare, LossCurvesOverlaidAndAlignedByStep) {
  // Run b steps half as fast: by time their losses part, by step they meet.
  const std::vector<RunData> runs{trained_run(5, "aaaaaaaaaaaa"), trained_run(2.5, "bbbbbbbbbbbb")};
  PlotOptions options;
  options.kind = PlotKind::Compare;
  options.metric = DeviceMetric::GpuUtilPercent;
  const Drawn by_time = draw(runs, options);
  ASSERT_EQ(by_time.geometry.panels.size(), 4u);  // utilization and loss rows, each with its bars
  EXPECT_EQ(by_time.size.height_px, default_size(PlotKind::Compare).height_px + 230);
  const PanelGeometry& loss_t = by_time.geometry.panels[2];
  const Pixels px_t(*by_time.canvas);
  EXPECT_TRUE(drawn_near(px_t, loss_t, 400, 2 - 2000.0 / 2000, series_color(0)));
  EXPECT_TRUE(drawn_near(px_t, loss_t, 400, 2 - 1000.0 / 2000, series_color(1)));
  EXPECT_NE(text_with(*by_time.canvas, "Final loss"), nullptr);

  options.align = PlotAlign::Step;
  const Drawn by_step = draw(runs, options);
  const PanelGeometry& loss_s = by_step.geometry.panels[2];
  const Pixels px_s(*by_step.canvas);
  // Run b (drawn over a, with the same loss at each step) at step 1000,
  // where by time it was at 1.75; run a alone past b's last step.
  EXPECT_TRUE(drawn_near(px_s, loss_s, 1000, 1.5, series_color(1)));
  EXPECT_FALSE(drawn_near(px_s, loss_s, 1000, 1.75, series_color(1)));
  EXPECT_TRUE(drawn_near(px_s, loss_s, 2500, 0.75, series_color(0)));
  // Run b reached step 1500 only: nothing of it beyond.
  EXPECT_FALSE(px_s.any_in({loss_s.x_px(2200), loss_s.frame.area.y, 3, loss_s.frame.area.h}, series_color(1)));
  EXPECT_NE(text_with(*by_step.canvas, "Step"), nullptr);
}

TEST(PlotCompare, AligningARunWithoutStepsIsAClearError) {
  const std::vector<RunData> runs{trained_run(5), make_run(SyntheticRun{}, "cccccccccccc", "plain")};
  PlotOptions options;
  options.kind = PlotKind::Compare;
  options.align = PlotAlign::Step;
  try {
    draw(runs, options);
    FAIL() << "no error";
  } catch (const PlotError& e) {
    EXPECT_NE(std::string(e.what()).find("run plain has no step annotations"), std::string::npos) << e.what();
  }
  options.kind = PlotKind::Timeline;
  EXPECT_THROW(check_plot_request(1, options), PlotError);
}

}  // namespace
}  // namespace gpuwatch::plot
