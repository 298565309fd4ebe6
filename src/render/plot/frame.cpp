#include "render/plot/frame.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "render/plot/style.h"

namespace gpuwatch::plot {

namespace {

constexpr double kTickLength = 4;
constexpr double kTickLabelPad = 3;   // between a tick and its label
constexpr double kMinXLabelGap = 14;  // between neighbouring x tick labels
constexpr double kMinArea = 10;

double snap(double v) { return std::floor(v) + 0.5; }

double widest(Canvas& canvas, const std::vector<std::string>& labels, const Font& font) {
  double w = 0;
  for (const std::string& l : labels) w = std::max(w, canvas.text_width(l, font));
  return w;
}

// Fewer and fewer ticks until neighbouring labels leave room between them.
Scale fit_x_scale(Canvas& canvas, const XAxisSpec& spec, double width_px, std::string& title) {
  if (spec.kind == XAxisSpec::Kind::Categories) {
    Scale s;
    s.lo = -0.5;
    s.hi = static_cast<double>(std::max<std::size_t>(spec.categories.size(), 1)) - 0.5;
    for (std::size_t i = 0; i < spec.categories.size(); ++i) {
      s.ticks.push_back(static_cast<double>(i));
      s.labels.push_back(spec.categories[i]);
    }
    title = spec.title;
    return s;
  }
  int intervals = std::max(1, static_cast<int>(width_px / 70));
  for (;; --intervals) {
    Scale s;
    if (spec.kind == XAxisSpec::Kind::Time) {
      TimeScale ts = time_scale(spec.hi, intervals);
      s = std::move(ts.scale);
      title = ts.title;
    } else {
      s = value_scale(spec.lo, spec.hi, intervals, spec.from_zero);
      title = spec.title;
    }
    if (intervals <= 1 || s.ticks.size() < 2) return s;
    const double spacing = (s.ticks[1] - s.ticks[0]) / (s.hi - s.lo) * width_px;
    if (spacing >= widest(canvas, s.labels, fonts::kTick) + kMinXLabelGap) return s;
  }
}

}  // namespace

std::vector<Frame> layout_frames(Canvas& canvas, std::span<const Rect> cells, std::span<const PanelText> texts,
                                 const XAxisSpec& x) {
  const double title_h = canvas.line_height(fonts::kPanelTitle) + kGap / 2;
  const double tick_h = canvas.line_height(fonts::kTick);
  const double axis_h = canvas.line_height(fonts::kAxisTitle);

  // One frame per text; cells past the last text stay empty.
  std::vector<Frame> frames(std::min(cells.size(), texts.size()));
  // Left room per column (cells with the same x): the widest y labels in it.
  std::map<long long, double> left_of_column;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const PanelText& t = texts[i];
    Frame& f = frames[i];
    f.cell = cells[i];
    f.title = t.title;
    f.shorter_titles = t.shorter_titles;
    f.y_title = t.y_title;
    f.y_title_short = t.y_title_short;
    f.x_labels = t.x_labels;
    f.show_x_title = t.show_x_title;
    f.x_grid = x.kind != XAxisSpec::Kind::Categories;
    const double top = f.cell.y + (t.title.empty() ? 0 : title_h) + t.band_h + tick_h / 2;
    const double bottom_room = kTickLength + (t.x_labels ? kTickLabelPad + tick_h : tick_h / 2) +
                               (t.show_x_title ? kTickLabelPad + axis_h : 0);
    f.area.y = top;
    f.area.h = std::max(kMinArea, f.cell.bottom() - bottom_room - top);
    if (t.band_h > 0) f.band = {0, top - tick_h / 2 - t.band_h, 0, t.band_h};
    const int intervals = std::clamp(static_cast<int>(f.area.h / (tick_h * 1.8)), 1, 10);
    f.y = t.y_lo <= t.y_hi ? value_scale(t.y_lo, t.y_hi, intervals, t.y_from_zero) : value_scale(0, 1, intervals, true);
    while (t.y_tick_max && !f.y.ticks.empty() && f.y.ticks.back() > *t.y_tick_max + 1e-9) {
      f.y.ticks.pop_back();
      f.y.labels.pop_back();
    }
    const double left = axis_h + kGap / 2 + widest(canvas, f.y.labels, fonts::kTick) + kTickLength + kTickLabelPad;
    double& column = left_of_column[std::llround(f.cell.x)];
    column = std::max(column, left);
  }
  for (std::size_t i = 0; i < frames.size(); ++i) {
    Frame& f = frames[i];
    f.area.x = f.cell.x + left_of_column[std::llround(f.cell.x)];
    const double right = texts[i].right_room + kGap;
    f.area.w = std::max(kMinArea, f.cell.right() - right - f.area.x);
    f.x = fit_x_scale(canvas, x, f.area.w, f.x_title);
    // A centred label at the right end must not leave the cell.
    if (x.kind != XAxisSpec::Kind::Categories && f.x_labels && !f.x.labels.empty()) {
      const double excess =
          f.px(f.x.ticks.back()) + canvas.text_width(f.x.labels.back(), fonts::kTick) / 2 - f.cell.right() + 1;
      if (excess > 0) {
        f.area.w = std::max(kMinArea, f.area.w - excess);
        f.x = fit_x_scale(canvas, x, f.area.w, f.x_title);
      }
    }
    if (f.band.h > 0) {
      f.band.x = f.area.x;
      f.band.w = f.area.w;
    }
  }
  return frames;
}

void draw_frame(Canvas& canvas, const Frame& f) {
  const double tick_h = canvas.line_height(fonts::kTick);
  if (!f.title.empty()) {
    const double room = f.cell.right() - f.area.x;
    std::string_view title = f.title;
    for (const std::string& shorter : f.shorter_titles) {
      if (canvas.text_width(title, fonts::kPanelTitle) <= room) break;
      title = shorter;
    }
    canvas.text(canvas.fit(title, room, fonts::kPanelTitle), f.area.x, f.cell.y, HAlign::Left, VAlign::Top,
                fonts::kPanelTitle, colors::kText);
  }
  // Grid under everything.
  for (double t : f.y.ticks) {
    const double y = snap(f.py(t));
    canvas.line(f.area.x, y, f.area.right(), y, colors::kGrid, 1);
  }
  if (f.x_grid) {
    for (double t : f.x.ticks) {
      const double x = snap(f.px(t));
      canvas.line(x, f.area.y, x, f.area.bottom(), colors::kGrid, 1);
    }
  }
  canvas.stroke({snap(f.area.x), snap(f.area.y), std::round(f.area.w), std::round(f.area.h)}, colors::kAxis, 1);

  // A label that would touch the one before it is left out (tiny panels).
  Rect previous{};
  for (std::size_t i = 0; i < f.y.ticks.size(); ++i) {
    const double y = snap(f.py(f.y.ticks[i]));
    canvas.line(f.area.x - kTickLength, y, f.area.x, y, colors::kAxis, 1);
    const double w = canvas.text_width(f.y.labels[i], fonts::kTick);
    const Rect box{f.area.x - kTickLength - kTickLabelPad - w, y - tick_h / 2, w, tick_h};
    if (i > 0 && box.overlaps(previous)) continue;
    previous = canvas.text(f.y.labels[i], box.right(), y, HAlign::Right, VAlign::Middle, fonts::kTick, colors::kText);
  }
  const double label_top = f.area.bottom() + kTickLength + kTickLabelPad;
  for (std::size_t i = 0; i < f.x.ticks.size(); ++i) {
    const double x = snap(f.px(f.x.ticks[i]));
    canvas.line(x, f.area.bottom(), x, f.area.bottom() + kTickLength, colors::kAxis, 1);
    if (!f.x_labels) continue;
    const double w = canvas.text_width(f.x.labels[i], fonts::kTick);
    const Rect box{x - w / 2, label_top, w, tick_h};
    // Neighbours keep a little room between them ("#1 #2", never "#1#2").
    const Rect spaced{box.x - kGap / 2, box.y, box.w + kGap, box.h};
    if (i > 0 && spaced.overlaps(previous)) continue;
    previous = canvas.text(f.x.labels[i], x, label_top, HAlign::Center, VAlign::Top, fonts::kTick, colors::kText);
  }
  if (!f.y_title.empty()) {
    const double axis_h = canvas.line_height(fonts::kAxisTitle);
    const bool fits = canvas.text_width(f.y_title, fonts::kAxisTitle) <= f.area.h || f.y_title_short.empty();
    canvas.text_up(canvas.fit(fits ? f.y_title : f.y_title_short, f.area.h, fonts::kAxisTitle), f.cell.x + axis_h / 2,
                   f.area.y + f.area.h / 2, fonts::kAxisTitle, colors::kText);
  }
  if (f.show_x_title && !f.x_title.empty()) {
    const double top = f.x_labels ? label_top + tick_h + kTickLabelPad : label_top;
    canvas.text(canvas.fit(f.x_title, f.area.w, fonts::kAxisTitle), f.area.x + f.area.w / 2, top, HAlign::Center,
                VAlign::Top, fonts::kAxisTitle, colors::kText);
  }
}

void draw_note(Canvas& canvas, const Frame& f, std::string_view note) {
  canvas.text(canvas.fit(note, f.area.w - 2 * kGap, fonts::kNote), f.area.x + f.area.w / 2, f.area.y + f.area.h / 2,
              HAlign::Center, VAlign::Middle, fonts::kNote, colors::kNoData);
}

void draw_reference_line(Canvas& canvas, const Frame& f, double y_value) {
  const double y = f.py(y_value);
  if (y < f.area.y || y > f.area.bottom()) return;
  canvas.line(f.area.x, y, f.area.right(), y, colors::kReference, 1.2, kDashed);
}

}  // namespace gpuwatch::plot
