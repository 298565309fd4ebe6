// Conversions at the edges: stored SI values to what people and seed files read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/bytes.h"
#include "core/metrics.h"

namespace gpuwatch {

// "2026-11-26T03:12:01.123456", local time, as Python's datetime.isoformat()
// writes it: the seeds' timestamp format.
std::string iso_local(std::int64_t wall_ns);
// "2026-11-26T03:12:01.123Z"
std::string iso_utc_ms(std::int64_t wall_ns);
// "03:12:01.123" local
std::string clock_local_ms(std::int64_t wall_ns);
// "1h02m03s", "12.3 s"
std::string human_duration(double seconds);
// "812.5 MiB", "12.34 GiB": binary units, chosen by size.
std::string human_bytes(double bytes);
// "1.5", "0.0": `decimals` places, and never "-0.0": a value that rounds to
// zero has no sign to show.
std::string fixed(double value, int decimals);
// "+1.5", "-1.5", "0.0": a sign always, except on a value that rounds to zero
// ("-0.0 %" reads as a loss that is not there). `minus` may be U+2212.
std::string signed_fixed(double value, int decimals, std::string_view minus = "-");
// "812", "2.4 k", "11.7 M", "1.3 B": a count (parameters, steps) in
// thousands, millions, billions, with three significant digits at most.
std::string human_count(double count);
// `text` if it fits in `max_columns`, else cut at the last space that fits,
// with "…": never inside a word, unless a single word is wider than
// max_columns (then at a code point, still with "…").
std::string shorten(std::string_view text, std::size_t max_columns);
// Rounds to `decimals` places for human-facing files (seed JSON keeps one).
double round_to(double value, int decimals);

// A table's column: its word and the display unit, "memory used GiB"; for a
// catalogue metric, its short label; with a statistic after the unit,
// "utilization % mean".
std::string column_title(std::string_view word, const DisplayFormat& format);
std::string column_title(const MetricInfo& metric);
std::string column_title(const MetricInfo& metric, std::string_view statistic);
// A narrow column's title, where room is short: the metric's tag and the
// display unit, "util %", "mem GiB".
std::string tag_title(const MetricInfo& metric);
// The catalogue's unit and divisor with other decimals: whole numbers where
// a glance is enough (record's summary, status, top).
constexpr DisplayFormat rounded(DisplayFormat format, int decimals) {
  format.decimals = decimals;
  return format;
}
// A stored value in a display format, without the unit: "61.3".
std::string display_value(const DisplayFormat& format, double stored);
// With its unit: "61.3 %", "250 W"; "12" for a unitless one.
std::string display_text(const DisplayFormat& format, double stored);
// Where room is short (top): "61%", "48°C" with no space before a percent
// or degree sign, "250 W" with one before a unit of letters.
std::string tight_text(const DisplayFormat& format, double stored);
// A unit after a number ("12.5" and "GiB"): spaced, or tight as tight_text.
std::string with_unit(std::string number, std::string_view unit, bool tight = false);

}  // namespace gpuwatch
