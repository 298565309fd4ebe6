// What is drawn inside a plot area: data lines, event markers (with their
// labels in the band above the area), bars.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/downsample.h"
#include "core/run.h"
#include "render/plot/frame.h"

namespace gpuwatch::plot {

// Points in stored units (divided by `divisor` for the frame's scale); NaN
// points break the line; a point alone between gaps is drawn as a dot.
void draw_line(Canvas& canvas, const Frame& frame, std::span<const LinePoint> points, double divisor, Rgb color,
               std::span<const double> dash = {});

struct Marker {
  double t = 0;  // seconds, the frame's x
  std::int64_t wall_ns = 0;  // the event's time, exactly
  Rgb color;
  std::string label;
  std::optional<int> device_index;  // the GPU the event concerns, if one
  // Which label wins a place in the band: epochs (0) before phases and a
  // GPU's own events (1), before marks and the rest (2), before the end of
  // an epoch or phase (3), which a start at the same place says already.
  int rank = 2;
  bool ends = false;  // the end of an epoch or phase
  bool mark = false;  // the user's own mark (a checkpoint): a triangle on the area's top edge too
};
// The run's events as markers: a GPU's event in that GPU's colour (by its
// position in the run), others grey, or all in `color` when given. Steps,
// logged scalars and the recorder's own bookkeeping (is_internal_event) are
// not markers.
std::vector<Marker> event_markers(const RunData& data, std::int64_t origin_ns, std::optional<Rgb> color = {});
// Thin vertical lines across the plot area, and the marks' triangles.
void draw_markers(Canvas& canvas, const Frame& frame, std::span<const Marker> markers);
// Room for `rows` rows of labels.
double marker_band_height(Canvas& canvas, std::size_t rows);
// Labels in the frame's band. Markers on the same few pixels share one label
// ("epoch 2 · train"), an end left out when a start is there too; labels are
// placed by rank, then time, each in the nearest row with room, so an end
// never takes an epoch's place. A label that finds no free place in any row
// is left out (its marker stays). Returns how many were placed.
std::size_t draw_marker_labels(Canvas& canvas, const Frame& frame, std::span<const Marker> markers);

struct Bar {
  double value = 0;  // in the frame's units
  std::optional<double> whisker_lo;
  std::optional<double> whisker_hi;
  Rgb color;
  std::string label;        // above the bar, when it fits
  std::string short_label;  // instead, when only this fits ("15.9" for "15.9 % fair")
};
// A bar of `value` with whiskers from `lo` to `hi` (all in the frame's
// units), labelled with its value ("12.5", "140"); "n/a" without a value.
Bar value_bar(std::optional<double> value, std::optional<double> lo, std::optional<double> hi, Rgb color);
// One bar per category (x = 0, 1, ...).
void draw_bars(Canvas& canvas, const Frame& frame, std::span<const Bar> bars);
// Several bars per category, side by side within its slot (x = 0, 1, ...):
// groups[i] are category i's bars, left to right.
void draw_bar_groups(Canvas& canvas, const Frame& frame, std::span<const std::vector<Bar>> groups);

}  // namespace gpuwatch::plot
