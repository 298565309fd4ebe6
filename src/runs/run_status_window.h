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
#include "analysis/run_verdict.h"
#include "core/device_columns.h"
#include "core/rollup.h"
#include "store/store.h"

namespace gpuwatch {

using RunRead = std::function<RunData(const LoadOptions&)>;

// "Now" is the advisor's window ending at now_end_mono_ns; "before", when
// given, the same length ending at before_end_mono_ns.
struct StatusWindows {
  std::int64_t now_end_mono_ns = 0;
  std::optional<std::int64_t> before_end_mono_ns;
};

// Where a long finished run's samples are read for its verdict: the
// store's own readers (store/stored_columns.h, store/rollups.h) when the
// caller has them; without, columns through RunRead and no rollups.
struct RunSources {
  const DeviceColumns* columns = nullptr;
  const RollupSource* rollups = nullptr;
};

// A live run's advisories are the advisor's over "now"; a finished one's
// are stored_run_verdict()'s, so that every surface gives one verdict.
RunStatusReport status_over_windows(const RunInfo& run, const RunRead& read, const StatusWindows& windows,
                                    const AdvisorConfig& config, const RunSources& sources = {});

// A finished run's verdict (analysis/run_verdict.h) over all of it, as
// `record`'s end summary, `status`, `report`, `top`, `serve` and the
// exporter give it. end_mono_ns: where its data ends (stored_run_end_mono_ns()
// of a stored run, the last sample of a file). A short run is read whole;
// a long one (judged_from_columns()) never is: its report comes from its
// columns and rollups, and the rules read only what they need.
RunVerdict stored_run_verdict(const RunInfo& run, const RunRead& read, const AdvisorConfig& config,
                              std::int64_t end_mono_ns, const RunSources& sources = {});

// Runs up to this many device-samples are read whole for their verdict
// (about 8 bytes a value, 30 columns: ~120 MB); longer ones from columns.
inline constexpr double kWholeRunVerdictMaxSamples = 500'000;
// Whether `base` (the run without device samples) is that long: its span
// over its interval, times its GPUs.
bool judged_from_columns(const RunData& base, std::int64_t end_mono_ns);

// A long run's verdict when the caller built its whole report already
// (`report`): `base` is the run without device samples.
RunVerdict column_run_verdict(const RunData& base, const RunReport& whole_report, const RunRead& read,
                              const DeviceColumns& columns, const AdvisorConfig& config, std::int64_t end_mono_ns);

// The config to judge `run` with: `fallback` when the user gave it (`given`),
// else the one the run was recorded with, else `fallback`. Reads the run's
// events only.
AdvisorConfig run_advisor_config(const RunRead& read, const AdvisorConfig& fallback, bool given);

// Where a stored run's data ends on its own clock: its end, or the
// recorder's last commit while it records.
std::int64_t stored_run_end_mono_ns(const RunInfo& run);

}  // namespace gpuwatch
