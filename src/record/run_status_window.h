// A run's status over its latest window, given how to read the run: what
// `gpuwatch status`, top's run panel and serve's run page show. The reads go
// through a function, so that a stored run, a file read into memory and a
// run in the dashboard's store pool are all the same here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "analysis/advisor/config.h"
#include "analysis/run_status.h"
#include "store/store.h"

namespace gpuwatch {

using RunRead = std::function<RunData(const LoadOptions&)>;

// "Now" is the advisor's window ending at now_end_mono_ns; "before", when
// given, the same length ending at before_end_mono_ns.
struct StatusWindows {
  std::int64_t now_end_mono_ns = 0;
  std::optional<std::int64_t> before_end_mono_ns;
};

RunStatusReport status_over_windows(const RunInfo& run, const RunRead& read, const StatusWindows& windows,
                                    const AdvisorConfig& config);

// Where a stored run's data ends on its own clock: its end, or the
// recorder's last commit while it records.
std::int64_t stored_run_end_mono_ns(const RunInfo& run);

}  // namespace gpuwatch
