// Statistics from per-minute rollups (core/rollup.h) instead of samples: what
// `report` reads over a long run, with only its detectors at full resolution.
#pragma once

#include <optional>
#include <span>

#include "analysis/run_report.h"
#include "analysis/stats.h"
#include "analysis/throttle.h"
#include "core/rollup.h"

namespace gpuwatch {

// summarize() from a column's rollups, whose weights are summarize()'s:
// count, span, min and max equal, mean and std equal to rounding (relative
// 1e-12), p50 and p95 equal when the rollups hold exact values, else within
// kRollupRelativeError (0.25 %) of them.
std::optional<Summary> summarize(std::span<const ColumnRollup> minutes);
// The same from the minutes merged already (merge_rollups, RollupAccumulator).
std::optional<Summary> summarize_merged(const ColumnRollup& merged);

// throttle_time() from the clock-event reasons' rollups: their histogram
// holds each mask with its time, so the shares equal the samples' to
// rounding. Nullopt when a minute was bucketed (more than
// kRollupExactValues masks) or holds a value that is not a mask.
std::optional<ThrottleReport> throttle_time(std::span<const ColumnRollup> minutes);
std::optional<ThrottleReport> throttle_time_merged(const ColumnRollup& merged);

// build_report(base, columns) with every device's statistics from `rollups`
// where it has them; the samples from `columns` are then read only for the
// detectors, energy and phases.
RunReport build_report(const RunData& base, const DeviceColumns& columns, const RollupSource& rollups);

}  // namespace gpuwatch
