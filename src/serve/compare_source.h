// The runs of GET /api/compare, read within a bound of memory whatever their
// length. A run that fits (kExactCompareDeviceSamples, all runs together) is
// read whole, and the answer is exactly `gpuwatch compare`'s. A longer one is
// read a span at a time, each GPU's samples reduced to at most
// kCompareBins means over equal spans of the run (the compared metrics
// only), so 10 million samples cost what 16,384 do; the answer says so in
// its notes.
#pragma once

#include <cstddef>
#include <vector>

#include "core/run.h"
#include "runs/run_minutes.h"
#include "store/store.h"

namespace gpuwatch {

// Read whole below this many device-samples, estimated from the runs'
// lengths, intervals and GPUs (a whole run costs about 300 bytes a sample
// while it is compared: 1 M about 300 MB). Above it, runs with per-minute
// rollups are compared from them (runs/run_minutes.h); this reduction is
// for those without.
inline constexpr double kExactCompareDeviceSamples = kCompareMinutesAboveDeviceSamples;
// Means per GPU (and for the host) of a run read in spans: compare's own
// bootstrap merges a run into at most this many points anyway.
inline constexpr std::size_t kCompareBins = 16384;

// The run reduced to kCompareBins means per GPU, read a span at a time.
// `facts` is the run without samples (devices and events).
RunData load_reduced_for_compare(Store& store, RunData facts);

}  // namespace gpuwatch
