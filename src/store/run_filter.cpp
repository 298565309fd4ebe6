#include "store/run_filter.h"

#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/durations.h"
#include "core/iso_time.h"
#include "core/job_id.h"

namespace gpuwatch {

namespace {

constexpr double kMaxDurationNs = 100.0 * 366 * 86400 * kSecondNs;

std::optional<double> unit_ns(char unit) {
  switch (unit) {
    case 's': return kSecondNs;
    case 'm': return 60 * kSecondNs;
    case 'h': return 3600 * kSecondNs;
    case 'd': return 86400 * kSecondNs;
    case 'w': return 7 * 86400 * kSecondNs;
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<std::int64_t> parse_duration_ns(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double total = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    // from_chars takes neither '+' nor leading spaces; '-' is refused below.
    if (rest.front() == '-' || rest.front() == '+') return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v, std::chars_format::fixed);
    if (ec != std::errc() || !std::isfinite(v)) return std::nullopt;
    rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    if (rest.empty()) {
      if (total > 0) return std::nullopt;  // "1h30": 30 what?
      total += v * kSecondNs;              // a bare number is seconds
      break;
    }
    const auto unit = unit_ns(rest.front());
    if (!unit) return std::nullopt;
    rest.remove_prefix(1);
    total += v * *unit;
    if (total > kMaxDurationNs) return std::nullopt;
  }
  if (!(total > 0) || total > kMaxDurationNs) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(total));
}

std::optional<std::int64_t> parse_time_bound_ns(std::string_view text, std::int64_t now_wall_ns) {
  if (auto d = parse_duration_ns(text)) return now_wall_ns - *d;
  // A date alone means its local midnight.
  if (text.size() == 10 && text[4] == '-' && text[7] == '-') {
    return parse_iso_time_ns(std::string(text) + "T00:00:00");
  }
  return parse_iso_time_ns(text);
}

std::vector<RunInfo> filter_runs(const std::vector<RunInfo>& runs, const RunFilter& filter) {
  std::vector<RunInfo> out;
  for (const RunInfo& r : runs) {
    if (!filter.name.empty() && r.name != filter.name &&
        fnmatch(filter.name.c_str(), r.name.c_str(), 0) != 0) {
      continue;
    }
    if (!filter.job.empty() && !job_id_matches(r.job, filter.job)) continue;
    if (filter.since_wall_ns && r.start_wall_ns < *filter.since_wall_ns) continue;
    out.push_back(r);
  }
  if (filter.limit && out.size() > *filter.limit) {
    out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(*filter.limit));
  }
  return out;
}

std::int64_t last_activity_wall_ns(const RunInfo& run) {
  if (run.end_wall_ns) return *run.end_wall_ns;
  return std::max(run.start_wall_ns, run.heartbeat_wall_ns);
}

std::vector<RunInfo> runs_to_prune(const std::vector<RunInfo>& runs, std::int64_t cutoff_wall_ns) {
  std::vector<RunInfo> out;
  for (const RunInfo& r : runs) {
    if (r.status != RunStatus::Recording && last_activity_wall_ns(r) < cutoff_wall_ns) out.push_back(r);
  }
  return out;
}

}  // namespace gpuwatch
