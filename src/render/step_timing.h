// The client's step timing (analysis/step_timing.h) as every surface shows
// it: report, status, top, serve and compare say it the same way, with the
// labels and formats of core/step_timing.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/step_timing.h"
#include "base/json_writer.h"

namespace gpuwatch {

// "62.0 %" and "0.120 s": the share of each step spent waiting for data, the mean step.
std::string data_wait_text(const StepTiming& t);
std::string step_time_text(const StepTiming& t);
// Table cells without the unit, which the column title carries: "62.0",
// "0.120"; "-" when unknown. Titles: "data wait %", "step time s".
std::string data_wait_cell(const StepTiming& t);
std::string step_time_cell(const StepTiming& t);
std::string data_wait_column();
std::string step_time_column();
// "data wait 62.0 % of each step, step time 0.120 s (480 steps)"
std::string step_timing_line(const StepTiming& t);
// `key`: {"data_wait_percent", "step_time_s", "timed_steps", "messages"}, or
// null when the run has no usable measurement.
void write_step_timing(JsonWriter& w, std::string_view key, const std::optional<StepTiming>& t);

}  // namespace gpuwatch
