// The memory trend of a long run from its detector minutes (detector_rollups.h):
// run_report.cpp's working span and memory_trend()'s slope, tenths and drops,
// with the full-resolution reads confined to the span's edge minutes and to
// the minutes where a drop is possible.
#pragma once

#include <optional>

#include "analysis/detector_rollups.h"

namespace gpuwatch {

std::optional<MemoryTrend> memory_trend_from_minutes(const MinuteDetectorInput& in,
                                                     const std::optional<IdleGapReport>& idle);

}  // namespace gpuwatch
