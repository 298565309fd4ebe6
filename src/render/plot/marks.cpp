#include "render/plot/marks.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "analysis/training.h"
#include "render/plot/cairo_library.h"
#include "render/plot/labels.h"
#include "render/plot/series.h"
#include "render/plot/style.h"

namespace gpuwatch::plot {

namespace {
constexpr double kLabelMaxWidth = 240;
constexpr double kMarkerLabelGap = 6;  // kept free between marker labels in a row
constexpr double kBarFill = 0.7;  // share of a category's width
constexpr double kBarMaxWidth = 110;
// cairo's rasterizer visits every edge of a path on each pixel row the path
// spans, so a line of thousands of tall segments (a noisy metric over 35 h:
// each pixel column from its min to its max) costs seconds as one path and
// a fraction of that stroked in pieces of this many segments. Vector
// formats only write the path: they keep it whole.
constexpr std::size_t kSegmentsPerStroke = 32;
}  // namespace

void draw_line(Canvas& canvas, const Frame& frame, std::span<const LinePoint> points, double divisor, Rgb color,
               std::span<const double> dash) {
  cairo_t* cr = canvas.cr();
  cairo_api().save(cr);
  const Rect& a = frame.area;
  cairo_api().rectangle(cr, a.x - 1, a.y - 1, a.w + 2, a.h + 2);
  cairo_api().clip(cr);
  cairo_api().new_path(cr);
  cairo_api().set_source_rgb(cr, color.r, color.g, color.b);
  cairo_api().set_line_width(cr, kLineWidth);
  const bool raster = cairo_api().surface_get_type(cairo_api().get_target(cr)) == CAIRO_SURFACE_TYPE_IMAGE;
  const std::size_t segments_per_stroke = raster ? kSegmentsPerStroke : points.size();
  // The dash pattern goes on across the pieces of a stretch, and starts
  // again after a gap.
  double drawn_length = 0;
  double piece_length = 0;
  std::size_t piece_segments = 0;
  const auto stroke_piece = [&] {
    cairo_api().set_dash(cr, dash.data(), static_cast<int>(dash.size()), drawn_length);
    cairo_api().stroke(cr);
    drawn_length += piece_length;
    piece_length = 0;
    piece_segments = 0;
  };
  std::vector<std::pair<double, double>> dots;
  std::size_t run = 0;
  double last_x = 0;
  double last_y = 0;
  for (const LinePoint& p : points) {
    if (std::isnan(p.v)) {
      if (run == 1) dots.emplace_back(last_x, last_y);
      if (run > 1) stroke_piece();
      drawn_length = 0;
      run = 0;
      continue;
    }
    const double x = frame.px(p.t);
    const double y = frame.py(p.v / divisor);
    if (run++ == 0) {
      cairo_api().move_to(cr, x, y);
    } else {
      cairo_api().line_to(cr, x, y);
      piece_length += std::hypot(x - last_x, y - last_y);
      if (++piece_segments == segments_per_stroke) {
        stroke_piece();
        cairo_api().move_to(cr, x, y);
      }
    }
    last_x = x;
    last_y = y;
  }
  if (run == 1) dots.emplace_back(last_x, last_y);
  stroke_piece();
  cairo_api().set_dash(cr, nullptr, 0, 0);
  for (const auto& [x, y] : dots) {
    cairo_api().new_sub_path(cr);
    cairo_api().arc(cr, x, y, kLineWidth * 1.2, 0, 2 * std::numbers::pi);
  }
  cairo_api().fill(cr);
  cairo_api().restore(cr);
}

namespace {

int marker_rank(const Event& e) {
  if (e.kind == "epoch") return e.message.empty() ? 3 : 0;
  if (e.kind == "phase") return e.message.empty() ? 3 : 1;
  return e.device_index ? 1 : 2;
}

}  // namespace

std::vector<Marker> event_markers(const RunData& data, std::int64_t origin_ns, std::optional<Rgb> color) {
  std::vector<Marker> markers;
  for (const Event& e : data.events) {
    // Steps and logged scalars come every second: lines, not markers.
    if (is_dense_annotation(e) || is_internal_event(e)) continue;
    Marker m;
    m.t = seconds_between(origin_ns, e.time.wall_ns);
    m.wall_ns = e.time.wall_ns;
    m.label = event_label(e);
    m.color = colors::kEvent;
    m.device_index = e.device_index;
    m.rank = marker_rank(e);
    m.ends = m.rank == 3;
    m.mark = e.kind == "mark";
    if (color) {
      m.color = *color;
    } else if (e.device_index) {
      for (std::size_t i = 0; i < data.devices.size(); ++i) {
        if (data.devices[i].info.index == *e.device_index) m.color = series_color(i);
      }
    }
    markers.push_back(std::move(m));
  }
  std::stable_sort(markers.begin(), markers.end(), [](const Marker& a, const Marker& b) { return a.t < b.t; });
  return markers;
}

namespace {

// A small triangle hanging from the area's top edge: a mark stays in sight
// where its label found no room.
void draw_mark_triangle(Canvas& canvas, double x, double top, Rgb color) {
  constexpr double kHalfWidth = 4.5;
  constexpr double kHeight = 7;
  cairo_t* cr = canvas.cr();
  cairo_api().new_path(cr);
  cairo_api().set_source_rgb(cr, color.r, color.g, color.b);
  cairo_api().move_to(cr, x - kHalfWidth, top);
  cairo_api().line_to(cr, x + kHalfWidth, top);
  cairo_api().line_to(cr, x, top + kHeight);
  cairo_api().fill(cr);
}

}  // namespace

void draw_markers(Canvas& canvas, const Frame& frame, std::span<const Marker> markers) {
  const Rect& a = frame.area;
  double last_x = -1;
  const Rgb* last_color = nullptr;
  for (const Marker& m : markers) {
    const double x = std::floor(frame.px(m.t)) + 0.5;
    if (x < a.x || x > a.right()) continue;
    if (m.mark) draw_mark_triangle(canvas, x, a.y, m.color);
    // Markers on one pixel column in one colour are one line.
    if (last_color && x == last_x && last_color->r == m.color.r && last_color->g == m.color.g &&
        last_color->b == m.color.b) {
      continue;
    }
    canvas.line(x, a.y, x, a.bottom(), m.color, 1, kDotted);
    last_x = x;
    last_color = &m.color;
  }
}

double marker_band_height(Canvas& canvas, std::size_t rows) {
  return static_cast<double>(rows) * (canvas.line_height(fonts::kNote) + 2);
}

namespace {

// Markers this close (pixels) read as one place: one label for them.
constexpr double kSamePlacePx = 2;

struct LabelGroup {
  double x = 0;
  double t = 0;
  int rank = 3;
  Rgb color;
  std::string text;
};

// The label of markers at one place: the starts' labels by rank, or only
// the ends' when nothing starts there; each label once.
std::string group_text(std::span<const Marker* const> group) {
  const bool any_start = std::any_of(group.begin(), group.end(), [](const Marker* m) { return !m->ends; });
  std::vector<const Marker*> shown;
  for (const Marker* m : group) {
    if (m->ends && any_start) continue;
    if (std::none_of(shown.begin(), shown.end(), [&](const Marker* s) { return s->label == m->label; })) {
      shown.push_back(m);
    }
  }
  std::stable_sort(shown.begin(), shown.end(), [](const Marker* a, const Marker* b) { return a->rank < b->rank; });
  std::string text;
  for (const Marker* m : shown) text += (text.empty() ? "" : " \u00b7 ") + m->label;
  return text;
}

std::vector<LabelGroup> label_groups(const Frame& frame, std::span<const Marker> markers) {
  std::vector<LabelGroup> groups;
  std::vector<const Marker*> group;
  double group_x = 0;
  const auto close_group = [&] {
    if (group.empty()) return;
    const Marker* first = *std::min_element(group.begin(), group.end(),
                                            [](const Marker* a, const Marker* b) { return a->rank < b->rank; });
    groups.push_back({group_x, group.front()->t, first->rank, first->color, group_text(group)});
    group.clear();
  };
  for (const Marker& m : markers) {
    const double x = std::floor(frame.px(m.t)) + 0.5;
    if (x < frame.band.x || x > frame.band.right()) continue;
    if (!group.empty() && x - group_x > kSamePlacePx) close_group();
    if (group.empty()) group_x = x;
    group.push_back(&m);
  }
  close_group();
  std::stable_sort(groups.begin(), groups.end(), [](const LabelGroup& a, const LabelGroup& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.t < b.t;
  });
  return groups;
}

}  // namespace

std::size_t draw_marker_labels(Canvas& canvas, const Frame& frame, std::span<const Marker> markers) {
  const Rect& band = frame.band;
  const double row_h = canvas.line_height(fonts::kNote) + 2;
  const auto rows = static_cast<std::size_t>(band.h / row_h);
  if (rows == 0) return 0;
  std::vector<std::vector<std::pair<double, double>>> taken(rows);
  std::size_t placed = 0;
  for (const LabelGroup& g : label_groups(frame, markers)) {
    const double x = g.x;
    const std::string text = canvas.fit(g.text, std::min(kLabelMaxWidth, band.w - 4), fonts::kNote);
    if (text.empty()) continue;
    const double w = canvas.text_width(text, fonts::kNote);
    // Right of the marker, or left of it near the right edge.
    double left = x + 3;
    if (left + w > band.right()) left = x - 3 - w;
    if (left < band.x) continue;
    const double from = std::min(left, x - 1) - kMarkerLabelGap / 2;
    const double to = std::max(left + w, x + 1) + kMarkerLabelGap / 2;
    for (std::size_t r = 0; r < rows; ++r) {
      auto& row = taken[r];
      const bool free = std::none_of(row.begin(), row.end(),
                                     [&](const auto& span) { return from < span.second && span.first < to; });
      if (!free) continue;
      row.emplace_back(from, to);
      const double top = band.bottom() - static_cast<double>(r + 1) * row_h;
      canvas.line(x, top + 1, x, top + row_h - 1, g.color, 1.5);
      canvas.text(text, left, top + 1, HAlign::Left, VAlign::Top, fonts::kNote, colors::kText);
      ++placed;
      break;
    }
  }
  return placed;
}

namespace {

// A bar centred at cx, `room` wide for its label.
void draw_bar(Canvas& canvas, const Frame& frame, double cx, double bar_w, double room, const Bar& b) {
  const double text_h = canvas.line_height(fonts::kNote);
  const double base = frame.py(std::max(frame.y.lo, 0.0));
  const double top = frame.py(b.value);
  canvas.fill({cx - bar_w / 2, std::min(base, top), bar_w, std::abs(base - top)}, b.color, 0.85);
  double label_bottom = top;
  if (b.whisker_lo && b.whisker_hi) {
    const double y0 = frame.py(*b.whisker_lo);
    const double y1 = frame.py(*b.whisker_hi);
    const double cap = std::min(bar_w / 4, 8.0);
    canvas.line(cx, y0, cx, y1, colors::kAxis, 1.2);
    canvas.line(cx - cap, y0, cx + cap, y0, colors::kAxis, 1.2);
    canvas.line(cx - cap, y1, cx + cap, y1, colors::kAxis, 1.2);
    label_bottom = std::min(label_bottom, std::min(y0, y1));
  }
  // Above the bar when there is room in the slot and under the frame's top.
  if (label_bottom - 2 - text_h < frame.area.y) return;
  for (const std::string& label : {b.label, b.short_label}) {
    const double w = canvas.text_width(label, fonts::kNote);
    if (label.empty() || w > room - 4) continue;
    // On white, so that a reference line behind it does not cross the digits.
    canvas.fill({cx - w / 2 - 1, label_bottom - 2 - text_h, w + 2, text_h}, rgb_hex(0xffffff), 0.85);
    canvas.text(label, cx, label_bottom - 2, HAlign::Center, VAlign::Bottom, fonts::kNote, colors::kText);
    return;
  }
}

double slot_width(const Frame& frame) { return frame.area.w / std::max(1.0, frame.x.hi - frame.x.lo); }

}  // namespace

Bar value_bar(std::optional<double> value, std::optional<double> lo, std::optional<double> hi, Rgb color) {
  Bar b;
  b.color = color;
  if (!value) {
    b.label = "n/a";
    return b;
  }
  b.value = *value;
  b.whisker_lo = lo;
  b.whisker_hi = hi;
  b.label = format_number(*value, std::abs(*value) >= 100 ? 0 : 1);
  return b;
}

void draw_bars(Canvas& canvas, const Frame& frame, std::span<const Bar> bars) {
  const double slot = slot_width(frame);
  const double bar_w = std::min(slot * kBarFill, kBarMaxWidth);
  for (std::size_t i = 0; i < bars.size(); ++i) draw_bar(canvas, frame, frame.px(static_cast<double>(i)), bar_w, slot, bars[i]);
}

void draw_bar_groups(Canvas& canvas, const Frame& frame, std::span<const std::vector<Bar>> groups) {
  const double slot = slot_width(frame);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const double n = static_cast<double>(std::max<std::size_t>(groups[i].size(), 1));
    const double group_w = std::min(slot * kBarFill, kBarMaxWidth * n);
    const double bar_w = group_w / n;
    for (std::size_t j = 0; j < groups[i].size(); ++j) {
      const double cx = frame.px(static_cast<double>(i)) - group_w / 2 + bar_w * (static_cast<double>(j) + 0.5);
      draw_bar(canvas, frame, cx, bar_w * 0.92, bar_w, groups[i][j]);
    }
  }
}

}  // namespace gpuwatch::plot
