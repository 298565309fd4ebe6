// What an imported value may be. Files come from other tools, hand edits and
// broken writers: a 1e308 in memory_used would overflow the store's fixed
// point into negative memory, a 1e9 in elapsed_seconds would make a
// 277,777-hour run. Values outside their metric's range are taken as absent
// and counted per metric; samples whose time cannot be right are dropped
// (run_builder.h). The ranges are wide on purpose: they reject what no GPU
// or host has ever reported, not what is merely unusual (docs/import.md).
#pragma once

#include <cstdint>
#include <string_view>

#include "core/metrics.h"

namespace gpuwatch {

struct ValueRange {
  double min;
  double max;
  std::string_view shown;  // "0 to 100 %", for the warning
  [[nodiscard]] bool contains(double v) const { return v >= min && v <= max; }
};

const ValueRange& plausible_range(DeviceMetric m);
const ValueRange& plausible_range(HostMetric m);
// Per-core CPU percentages of host samples.
inline constexpr ValueRange kCorePercentRange{0, 100, "0 to 100 %"};

// The longest run an import accepts: elapsed seconds beyond it are ignored,
// and samples more than this far from the run's median time are dropped.
inline constexpr double kMaxRunSeconds = 366.0 * 86400;
// How far a sample's timestamp may disagree with the run's start plus its
// elapsed seconds (daylight-saving jumps and clock steps stay well within).
inline constexpr std::int64_t kMaxClockDisagreementNs = 86'400'000'000'000;
// Completes "N samples dropped: ..." for them.
inline constexpr std::string_view kClockDisagreement =
    "whose elapsed seconds disagree with their timestamp by more than a day";

}  // namespace gpuwatch
