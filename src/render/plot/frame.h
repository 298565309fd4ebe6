// A panel: a title, a plot area with grid and frame, tick labels and axis
// titles around it, and the data-to-pixel transform of the area. Panels that
// share an x axis are laid out together so that their plot areas line up.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "render/plot/canvas.h"
#include "render/plot/scale.h"

namespace gpuwatch::plot {

struct Frame {
  Rect cell;  // all the panel owns
  Rect area;  // where data are drawn
  Scale x;
  Scale y;
  std::string title;
  std::vector<std::string> shorter_titles;  // tried in order when the title does not fit
  std::string x_title;
  std::string y_title;
  std::string y_title_short;  // when y_title is longer than the area is high
  bool x_labels = true;
  bool show_x_title = true;
  bool x_grid = true;
  Rect band;  // reserved between title and area (event labels); empty if none

  [[nodiscard]] double px(double x_value) const { return area.x + (x_value - x.lo) / (x.hi - x.lo) * area.w; }
  [[nodiscard]] double py(double y_value) const { return area.bottom() - (y_value - y.lo) / (y.hi - y.lo) * area.h; }
};

// What a panel shows besides its data.
struct PanelText {
  std::string title;
  std::vector<std::string> shorter_titles;  // e.g. without the statistics, for narrow panels
  std::string y_title;
  std::string y_title_short;  // e.g. just the unit, for small panels
  double y_lo = 0;  // data range, in the units shown; lo > hi: no data
  double y_hi = 0;
  bool y_from_zero = true;
  std::optional<double> y_tick_max;  // no ticks above (room for labels over 100 %)
  bool x_labels = true;
  bool show_x_title = true;
  double band_h = 0;      // height reserved above the area for event labels
  double right_room = 0;  // extra room right of the area (labels of reference lines)
};

struct XAxisSpec {
  enum class Kind { Time, Value, Categories };
  Kind kind = Kind::Time;
  double lo = 0;  // Time: always 0
  double hi = 1;  // Time: seconds
  bool from_zero = false;
  std::vector<std::string> categories;  // one tick each at 0 .. n-1
  std::string title;                    // Value and Categories (Time writes its own)
};

// Frames for `cells` (one per panel, parallel to `texts`; extra cells stay
// empty), all with the x axis `x`: plot areas of one column share their left
// edge and width.
std::vector<Frame> layout_frames(Canvas& canvas, std::span<const Rect> cells, std::span<const PanelText> texts,
                                 const XAxisSpec& x);

// Title, grid, frame, ticks, tick labels and axis titles.
void draw_frame(Canvas& canvas, const Frame& frame);

// A grey note in the middle of the area ("no data").
void draw_note(Canvas& canvas, const Frame& frame, std::string_view note);

// Horizontal dashed reference line at y (capacity, limit), within the area.
void draw_reference_line(Canvas& canvas, const Frame& frame, double y_value);

}  // namespace gpuwatch::plot
