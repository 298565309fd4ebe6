// The step's own time, as the Python client measures it (gpuwatch.loader(),
// the Lightning and Hugging Face callbacks): reserved names of an ordinary
// "log" annotation, at most one message a second, sent at the end of an
// iteration (docs/annotations.md). Each message covers the steps since the
// one before it; its time is the end of the last of them.
//
// Defined in core because the recorder (which sums messages it holds back)
// and the analysis (which sums what was stored) both read them, and every
// display shows them with the labels and formats of the derived catalogue.
#pragma once

#include <string_view>

#include "core/derived_metrics.h"

namespace gpuwatch {

// Seconds the loop waited inside next() for its batches, over the steps covered.
inline constexpr std::string_view kDataWaitLogName = "data_wait_s";
// Seconds those steps took, the wait included.
inline constexpr std::string_view kStepTimeLogName = "step_time_s";
// How many steps the message covers.
inline constexpr std::string_view kTimedStepsLogName = "timed_steps";

constexpr bool is_step_timing_name(std::string_view name) {
  return name == kDataWaitLogName || name == kStepTimeLogName || name == kTimedStepsLogName;
}

// What is derived from them: rows of the derived catalogue
// (core/derived_metrics.h), with their stable names (JSON keys), labels and
// display formats.
inline constexpr const MetricInfo& kDataWaitShareInfo = info(DerivedMetric::DataWaitPercent);
inline constexpr const MetricInfo& kStepTimeInfo = info(DerivedMetric::StepTimeSeconds);
inline constexpr const MetricInfo& kTimedStepsInfo = info(DerivedMetric::TimedSteps);

}  // namespace gpuwatch
