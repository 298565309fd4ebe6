// Axis scales: "nice" tick steps (1, 2 or 5 times a power of ten), elapsed
// time in seconds, minutes and hours, and the unit a stored value is shown in
// (bytes as GiB, joules as kJ, ...).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::plot {

struct Scale {
  double lo = 0;  // the axis' ends, a little beyond the outer ticks
  double hi = 1;
  std::vector<double> ticks;
  std::vector<std::string> labels;  // one per tick
};

// The smallest nice step that splits `span` into at most max_intervals parts.
double nice_step(double span, int max_intervals);

// Ticks at multiples of a nice step covering [data_lo, data_hi] (from 0 when
// from_zero and the data are not negative), labelled with the decimals the
// step needs; the ends get 3 % of room so that a line on the outermost tick
// is not hidden by the frame. Equal or non-finite ends still give a scale.
Scale value_scale(double data_lo, double data_hi, int max_intervals, bool from_zero);

// Elapsed time from 0 to max_s, ticks at whole seconds, minutes or hours.
struct TimeScale {
  Scale scale;
  std::string title;  // "Elapsed time (h:mm)" ...: the axis title, format included
};
TimeScale time_scale(double max_s, int max_intervals);

// Stored value / divisor = value shown with `symbol`.
struct DisplayUnit {
  double divisor = 1;
  std::string symbol;
};
// stored_unit is the catalogue's (core/metrics.h): "B" becomes KiB, MiB,
// GiB or TiB by max_abs, "B/s" likewise, "J" kJ or MJ; others stay.
DisplayUnit display_unit(std::string_view stored_unit, double max_abs);

// "1.5" / "12" with the given number of decimals, never "-0".
std::string format_number(double value, int decimals);

}  // namespace gpuwatch::plot
