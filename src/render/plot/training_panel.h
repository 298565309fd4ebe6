// The training's own signals as panels beside the GPUs' (docs/plot.md): one
// panel per group of logged scalars (loss first; "loss" and "val_loss" in
// one panel, train solid, validation dashed, test dotted), then the steps
// per second, or the samples per second when a batch size is logged, then
// the share of each step spent waiting for data when the loop measures it.
// Internal to render/plot.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/training_series.h"
#include "render/plot/frame.h"
#include "render/plot/legend.h"
#include "render/plot/series.h"

namespace gpuwatch::plot::detail {

struct TrainingCurve {
  std::string name;  // as logged: "val_loss"
  ScalarSplit split = ScalarSplit::Train;
  std::vector<TrainingPoint> points;
};

struct TrainingPanel {
  std::string title;  // "loss", "steps/s"
  std::vector<TrainingCurve> curves;
  ValueRange range;
};

// Beyond this many panels the rest of the groups are left out (the report
// lists every scalar).
inline constexpr std::size_t kMaxTrainingPanels = 8;
// Height a training panel adds to a picture of the default size.
inline constexpr int kTrainingPanelHeightPx = 230;

// The panels of a run's annotations; none when it logged no scalar and
// counted fewer than two steps. `span_s`: the run's length, which sets the
// window steps are counted over (about 300 windows, at least 10 s each).
std::vector<TrainingPanel> training_panels(const TrainingSeries& series, double span_s);

// The panel's title and y axis.
PanelText training_panel_text(const TrainingPanel& panel);

// Solid, dashed, dotted.
std::span<const double> split_dash(ScalarSplit split);
// Black for a run's own training, a colour per split ...: the timeline's.
Rgb split_color(ScalarSplit split);
// Legend entries for the splits the panels draw ("train", "val", ...).
std::vector<LegendEntry> split_entries(const std::vector<TrainingPanel>& panels);

// Where a training point goes on the x axis: seconds since the origin, or a
// run's progress (step, epoch); nullopt: not drawn.
using TrainingX = std::function<std::optional<double>(std::int64_t wall_ns)>;

// Each curve of the panel as a line in `color` (nullopt: the split's).
void draw_training_curves(Canvas& canvas, const Frame& frame, const TrainingPanel& panel, const TrainingX& x,
                          std::optional<Rgb> color);

}  // namespace gpuwatch::plot::detail
