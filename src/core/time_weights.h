// The weight of each sample in every time-weighted statistic: half the gap to
// each neighbour, each half capped. Shared by analysis (summaries, detectors)
// and the store (per-minute rollups), so that a statistic read from rollups
// weighs every sample exactly as one computed from the samples does.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gpuwatch {

// The cap of a half gap when the caller gives none: 1.5 x the median gap
// between `time_ns` (times ascending), at least 1 ns.
std::int64_t default_half_gap_cap_ns(std::span<const std::int64_t> time_ns);

// Whole nanoseconds: half of each gap (integer division) to each neighbour,
// each half capped at `max_half_gap_ns` (zero: the default cap above). All
// zero for fewer than two samples. Integer halves keep regular sampling's
// weights, and every sum of them below 2^53 ns (104 days), exact in a double.
std::vector<double> half_gap_weights_ns(std::span<const std::int64_t> time_ns, std::int64_t max_half_gap_ns = 0);

}  // namespace gpuwatch
