// Pieces the comparison and group renderers share: how each metric reads in
// a table and in a sentence, signed numbers, and the tables themselves, so
// that text and markdown say exactly the same thing.
#pragma once

#include <string>
#include <string_view>

#include "analysis/compare.h"
#include "render/table.h"

namespace gpuwatch {
class JsonWriter;
}

namespace gpuwatch::compare_format {

inline constexpr std::string_view kMinus = "−";  // U+2212, as typeset

// How a sentence speaks of a metric; its label (a table row's words) is the
// metric's own (analysis/run_series.h, from the catalogue).
struct MetricWords {
  // The sentence "B <verb> 7.5 % <more|less> <noun> than A".
  std::string_view verb;
  std::string_view more;
  std::string_view less;
  std::string_view noun;
  std::string_view topic;  // "No real difference in <topic> between ..."
};
MetricWords words(RunMetric m);
// The table row's title: the label and the display unit, "GPU memory GiB".
std::string metric_title(RunMetric m);

// In the label's unit, e.g. "11.71" (GiB).
std::string table_number(RunMetric m, double value);
// "+0.25", "−0.88", "0.00".
std::string signed_number(double value, int decimals);
// "−7.5 %", "+0.042 %".
// A difference in the metric's display unit, signed: "+1.25".
std::string signed_delta(RunMetric m, double delta);
std::string signed_percent(double percent);
// As people read it: "10.83 GiB", "61.2 %", "410 W".
std::string human_value(RunMetric m, double value);
// The interval of a difference: "−8.1 % to −6.9 %", or in the metric's unit
// when the baseline is 0 and percentages mean nothing.
std::string interval_text(RunMetric m, const Difference& d);

// "B (adamwprune)"; the id instead of a missing name, both when names repeat.
std::string run_name(const Comparison& c, std::size_t run);
// A bootstrap block's length: "0.049 s", "0.7 s", "12.0 s", "2m05s".
std::string block_duration(double seconds);
// "2026-11-26 03:12:01", local time.
std::string start_time(const RunInfo& run);
// "exit 0", "signal 9 (SIGKILL)", "interrupted", "recording".
std::string short_outcome(const RunInfo& run);

// "Comparison of 2 runs: B relative to A (A is the baseline; delta = B − A,
// in % of A)": the direction, stated once for every format.
std::string direction_text(const Comparison& c);
// id, name, start, status, exit_code, exit_signal: how both JSON formats
// name a run, inside an object the caller opened.
void write_run_fields(JsonWriter& w, const RunInfo& run);

// How runs were aligned and what the intervals are, in a few sentences.
std::string alignment_text(const Comparison& c);
std::string method_text(const Comparison& c);

// Label, id, name, start, compared window, outcome: one row per run.
Table runs_table(const Comparison& c);
// Every metric of run `run` against the baseline: means, delta, %, interval.
Table pair_table(const Comparison& c, std::size_t run);
// The loop's measured data wait and step time per run, side by side; no
// rows (an empty table) when no run has them.
Table step_timing_table(const Comparison& c);
// Samples, effective samples and block length of runs [first, first+count).
Table samples_table(const Comparison& c, std::size_t first, std::size_t count);

}  // namespace gpuwatch::compare_format
