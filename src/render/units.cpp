#include "render/units.h"

#include <cmath>
#include <ctime>

#include <fmt/format.h>

namespace gpuwatch {

namespace {
std::tm split(std::int64_t wall_ns, bool local, std::int64_t& sub_ns) {
  std::int64_t secs = wall_ns / 1'000'000'000;
  sub_ns = wall_ns % 1'000'000'000;
  if (sub_ns < 0) {
    sub_ns += 1'000'000'000;
    --secs;
  }
  const auto t = static_cast<std::time_t>(secs);
  std::tm tm{};
  if (local) {
    localtime_r(&t, &tm);
  } else {
    gmtime_r(&t, &tm);
  }
  return tm;
}
}  // namespace

std::string iso_local(std::int64_t wall_ns) {
  std::int64_t sub = 0;
  const std::tm tm = split(wall_ns, true, sub);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, sub / 1000);
}

std::string iso_utc_ms(std::int64_t wall_ns) {
  std::int64_t sub = 0;
  const std::tm tm = split(wall_ns, false, sub);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, sub / 1'000'000);
}

std::string clock_local_ms(std::int64_t wall_ns) {
  std::int64_t sub = 0;
  const std::tm tm = split(wall_ns, true, sub);
  return fmt::format("{:02}:{:02}:{:02}.{:03}", tm.tm_hour, tm.tm_min, tm.tm_sec, sub / 1'000'000);
}

std::string human_duration(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  const auto total = static_cast<std::int64_t>(std::llround(seconds));
  if (total < 3600) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}h{:02}m{:02}s", total / 3600, (total / 60) % 60, total % 60);
}

std::string human_bytes(double bytes) {
  if (bytes >= kGiB) return fmt::format("{:.2f} GiB", bytes / kGiB);
  if (bytes >= kMiB) return fmt::format("{:.1f} MiB", bytes / kMiB);
  return fmt::format("{:.0f} KiB", bytes / 1024);
}

double round_to(double value, int decimals) {
  const double f = std::pow(10.0, decimals);
  return std::round(value * f) / f;
}

}  // namespace gpuwatch
