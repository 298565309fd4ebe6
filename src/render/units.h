// Conversions at the edges: stored SI values to what people and seed files read.
#pragma once

#include <cstdint>
#include <string>

namespace gpuwatch {

inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// "2026-11-26T03:12:01.123456", local time, as Python's datetime.isoformat()
// writes it: the seeds' timestamp format.
std::string iso_local(std::int64_t wall_ns);
// "2026-11-26T03:12:01.123Z"
std::string iso_utc_ms(std::int64_t wall_ns);
// "03:12:01.123" local
std::string clock_local_ms(std::int64_t wall_ns);
// "1h02m03s", "12.3 s"
std::string human_duration(double seconds);
// "812.5 MiB", "12.34 GiB": binary units, chosen by size.
std::string human_bytes(double bytes);
// Rounds to `decimals` places for human-facing files (seed JSON keeps one).
double round_to(double value, int decimals);

}  // namespace gpuwatch
