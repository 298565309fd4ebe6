// The advisories `record`'s live advisor stored in a run as it raised and
// cleared them, read back: what a finished run's verdict merges in
// (analysis/run_verdict.h). The messages come from the store or an imported
// file, so anything is parsed safely (fuzz/recorded_advisories_fuzz.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/advisor/advisory.h"
#include "core/run.h"

namespace gpuwatch {

// The events the live advisor stores as its advisories change
// ("warning balance.imbalance GPU 1: ...", "cleared balance.imbalance GPU 1").
inline constexpr std::string_view kAdvisoryEventKind = "advisory";

// The message of the event that stores one change: "<severity> <id>[ GPU
// <n>]: <summary>", or "cleared <id>[ GPU <n>]".
std::string advisory_event_message(const AdvisoryChange& change);

// One advisory the live advisor raised during recording, replayed from the
// run's advisory events: how long it was raised in all, at its most severe.
struct RecordedAdvisory {
  Advisory advisory;      // id, device, the most severe severity, the last summary
  double raised_s = 0;    // total time raised (to the run's end when never cleared)
};
std::vector<RecordedAdvisory> recorded_advisories(const std::vector<Event>& events, std::int64_t end_mono_ns);
// The same, counting raised time only within [begin_mono_ns, end_mono_ns):
// events outside it still say what was raised when it begins and ends.
std::vector<RecordedAdvisory> recorded_advisories(const std::vector<Event>& events, std::int64_t begin_mono_ns,
                                                  std::int64_t end_mono_ns);

}  // namespace gpuwatch
