// Which stored runs `runs`, `rm` and `prune` act on: pure functions over
// RunInfo, and the parsers of their time flags (--since 2h, --older-than 30d).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"

namespace gpuwatch {

// "90", "90s", "15m", "2h", "30d", "2w", "1.5h", "1h30m": a positive
// duration of at most 100 years, in nanoseconds. nullopt for anything else.
std::optional<std::int64_t> parse_duration_ns(std::string_view text);

// A point in time given as a duration before now ("2h", "30d") or an ISO
// date or time ("2026-11-01" at local midnight, "2026-11-01T12:00:00",
// "...Z"). nullopt for anything else.
std::optional<std::int64_t> parse_time_bound_ns(std::string_view text, std::int64_t now_wall_ns);

struct RunFilter {
  std::string name;                           // exact name or shell glob ("bert-*"); empty: any
  std::string job;                            // a job id (job_id_matches); empty: any
  std::optional<std::int64_t> since_wall_ns;  // started at or after
  std::optional<std::size_t> limit;           // only the newest N of those that match
};

// `runs` oldest first in, the matching ones out, still oldest first.
std::vector<RunInfo> filter_runs(const std::vector<RunInfo>& runs, const RunFilter& filter);

// When a run was last written to: its end, else its last commit, else its start.
std::int64_t last_activity_wall_ns(const RunInfo& run);

// Runs `prune --older-than` deletes: last written to before `cutoff_wall_ns`
// and not being recorded.
std::vector<RunInfo> runs_to_prune(const std::vector<RunInfo>& runs, std::int64_t cutoff_wall_ns);

}  // namespace gpuwatch
