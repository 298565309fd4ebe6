// ISO-8601 times as the seed tools and gpuwatch's exports write them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuwatch {

// Every wall time an importer accepts lies in [0, kMaxImportWallNs]
// (2201-01-02T00:00Z), so that differences of them fit in int64.
inline constexpr std::int64_t kMaxImportWallNs = 7'289'740'800'000'000'000;

// Unix nanoseconds of "2025-08-29T04:35:11.660455" (Python's isoformat():
// local time with no zone, read in the zone of the TZ environment),
// "...123Z" (UTC) or "...+02:00"; 'T' or ' ' between date and time; up to
// nine fraction digits. Years 1970 to 2200, never before 1970-01-01T00:00Z.
// nullopt for anything else.
std::optional<std::int64_t> parse_iso_time_ns(std::string_view text);

}  // namespace gpuwatch
