#include "render/plot/training_panel.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "render/plot/marks.h"
#include "render/plot/style.h"

namespace gpuwatch::plot::detail {

namespace {

// Steps are stored at most once a second: a rate over fewer seconds is noise.
constexpr double kMinRateWindowS = 10;
constexpr double kRateWindowsPerRun = 300;

constexpr double kTestDash[] = {1.5, 3};  // finer than the markers' dots

// A pause of this many of a curve's usual spacings breaks its line: no loss
// is logged during an evaluation, and a line across it would say one was.
constexpr double kGapSpacings = 2.5;

// The median time between a curve's points; none for fewer than three.
std::optional<double> usual_spacing_ns(std::span<const TrainingPoint> points) {
  if (points.size() < 3) return std::nullopt;
  std::vector<double> spacing;
  spacing.reserve(points.size() - 1);
  for (std::size_t i = 1; i < points.size(); ++i) {
    spacing.push_back(static_cast<double>(points[i].wall_ns - points[i - 1].wall_ns));
  }
  const auto mid = spacing.begin() + static_cast<std::ptrdiff_t>(spacing.size() / 2);
  std::nth_element(spacing.begin(), mid, spacing.end());
  if (*mid <= 0) return std::nullopt;
  return *mid;
}

// The curve as a line on the frame's x axis, broken where `x` gives no
// place and at pauses.
Line curve_line(const TrainingCurve& c, const TrainingX& x) {
  Line line;
  const std::optional<double> usual = usual_spacing_ns(c.points);
  const auto add_break = [&line] {
    if (!line.v.empty() && !std::isnan(line.v.back())) {
      line.t_s.push_back(line.t_s.back());
      line.v.push_back(kNaN);
    }
  };
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    const TrainingPoint& p = c.points[i];
    const std::optional<double> at = x(p.wall_ns);
    if (!at) {
      add_break();
      continue;
    }
    if (i > 0 && usual && static_cast<double>(p.wall_ns - c.points[i - 1].wall_ns) > kGapSpacings * *usual) {
      add_break();
    }
    line.t_s.push_back(*at);
    line.v.push_back(p.value);
  }
  return line;
}

TrainingPanel& panel_titled(std::vector<TrainingPanel>& panels, const std::string& title) {
  auto it = std::find_if(panels.begin(), panels.end(), [&](const TrainingPanel& p) { return p.title == title; });
  if (it != panels.end()) return *it;
  panels.push_back({title, {}, {}});
  return panels.back();
}

void add_curve(TrainingPanel& panel, TrainingCurve curve) {
  for (const TrainingPoint& p : curve.points) panel.range.add(p.value);
  panel.curves.push_back(std::move(curve));
}

std::optional<TrainingPanel> throughput_panel(const TrainingSeries& series, double span_s) {
  const double window_s = std::max(kMinRateWindowS, span_s / kRateWindowsPerRun);
  std::vector<TrainingPoint> rate = step_rate(series.steps, window_s);
  if (rate.empty()) return std::nullopt;
  TrainingPanel panel;
  panel.title = "steps/s";
  if (!series.batch_size.empty()) {
    rate = sample_rate(rate, series.batch_size);
    panel.title = "samples/s";
  }
  add_curve(panel, {panel.title, ScalarSplit::Train, std::move(rate)});
  panel.range.add(0.0);  // a rate is read against zero
  return panel;
}

std::optional<TrainingPanel> data_wait_panel(const TrainingSeries& series) {
  if (series.data_wait_percent.empty()) return std::nullopt;
  TrainingPanel panel;
  panel.title = "data wait (% of step time)";
  add_curve(panel, {panel.title, ScalarSplit::Train, series.data_wait_percent});
  panel.range.add(0.0);
  panel.range.add(100.0);  // a share: read against the whole
  return panel;
}

}  // namespace

std::vector<TrainingPanel> training_panels(const TrainingSeries& series, double span_s) {
  std::vector<TrainingPanel> panels;
  for (const ScalarSeries& s : series.scalars) {
    const ScalarName name = split_scalar_name(s.name);
    add_curve(panel_titled(panels, name.group), {s.name, name.split, s.points});
  }
  // The loss first: what a run is judged by.
  std::stable_partition(panels.begin(), panels.end(), [](const TrainingPanel& p) { return p.title == "loss"; });
  std::optional<TrainingPanel> rate = throughput_panel(series, span_s);
  std::optional<TrainingPanel> wait = data_wait_panel(series);
  const std::size_t room = kMaxTrainingPanels - (rate ? 1 : 0) - (wait ? 1 : 0);
  if (panels.size() > room) panels.resize(room);
  for (std::optional<TrainingPanel>* p : {&rate, &wait}) {
    if (*p) panels.push_back(std::move(**p));
  }
  return panels;
}

PanelText training_panel_text(const TrainingPanel& panel) {
  PanelText t;
  t.title = panel.title;
  const bool named_as_title = panel.curves.size() == 1 && panel.curves[0].name == panel.title;
  if (!named_as_title) {
    std::string names;
    for (const TrainingCurve& c : panel.curves) {
      names += (names.empty() ? "" : ", ") + c.name;
      if (c.split == ScalarSplit::Val) names += " (dashed)";
      if (c.split == ScalarSplit::Test) names += " (dotted)";
    }
    t.shorter_titles.push_back(t.title);
    t.title += "  \u00b7  " + names;
  }
  t.y_title = panel.title;
  t.y_lo = panel.range.empty() ? 1 : panel.range.lo;
  t.y_hi = panel.range.empty() ? 0 : panel.range.hi;
  t.y_from_zero = false;
  return t;
}

std::span<const double> split_dash(ScalarSplit split) {
  switch (split) {
    case ScalarSplit::Train: return {};
    case ScalarSplit::Val: return kDashed;
    case ScalarSplit::Test: return kTestDash;
  }
  return {};
}

Rgb split_color(ScalarSplit split) {
  switch (split) {
    case ScalarSplit::Train: return colors::kTrain;
    case ScalarSplit::Val: return colors::kVal;
    case ScalarSplit::Test: return colors::kTest;
  }
  return colors::kTrain;
}

std::vector<LegendEntry> split_entries(const std::vector<TrainingPanel>& panels) {
  std::vector<LegendEntry> entries;
  for (const ScalarSplit split : {ScalarSplit::Train, ScalarSplit::Val, ScalarSplit::Test}) {
    const bool drawn = std::any_of(panels.begin(), panels.end(), [&](const TrainingPanel& p) {
      return std::any_of(p.curves.begin(), p.curves.end(), [&](const TrainingCurve& c) { return c.split == split; });
    });
    if (drawn) entries.push_back({fmt::format("training: {}", to_string(split)), split_color(split), Swatch::Line,
                                  split_dash(split)});
  }
  return entries;
}

void draw_training_curves(Canvas& canvas, const Frame& frame, const TrainingPanel& panel, const TrainingX& x,
                          std::optional<Rgb> color) {
  LineBuilder builder;
  for (const TrainingCurve& c : panel.curves) {
    const Line line = curve_line(c, x);
    if (line.t_s.empty()) continue;
    const auto points = builder.points(line, 0, pixel_columns(frame));
    draw_line(canvas, frame, points, 1, color.value_or(split_color(c.split)), split_dash(c.split));
  }
}

}  // namespace gpuwatch::plot::detail
