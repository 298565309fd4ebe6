#include "render/units.h"

#include <cmath>
#include <ctime>

#include <fmt/format.h>

#include "render/table.h"

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
  return fmt::format("{:.0f} KiB", bytes / kKiB);
}

std::string fixed(double value, int decimals) {
  std::string s = fmt::format("{:.{}f}", value, decimals);
  if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string column_title(std::string_view word, const DisplayFormat& format) {
  if (format.unit.empty()) return std::string(word);
  return fmt::format("{} {}", word, format.unit);
}

std::string column_title(const MetricInfo& metric) { return column_title(metric.short_label, metric.display); }

std::string column_title(const MetricInfo& metric, std::string_view statistic) {
  return fmt::format("{} {}", column_title(metric), statistic);
}

std::string tag_title(const MetricInfo& metric) { return column_title(metric.tag, metric.display); }

std::string display_value(const DisplayFormat& format, double stored) {
  return fixed(stored / format.divisor, format.decimals);
}

std::string with_unit(std::string number, std::string_view unit, bool tight) {
  if (unit.empty()) return number;
  // "%" and "°C" follow the number directly where room is short, as nvtop
  // and nvidia-smi write them; a unit of letters never does ("250W").
  const bool sign = unit.starts_with("%") || unit.starts_with("°");
  return number + (tight && sign ? "" : " ") + std::string(unit);
}

std::string display_text(const DisplayFormat& format, double stored) {
  return with_unit(display_value(format, stored), format.unit);
}

std::string tight_text(const DisplayFormat& format, double stored) {
  return with_unit(display_value(format, stored), format.unit, true);
}

std::string signed_fixed(double value, int decimals, std::string_view minus) {
  const std::string digits = fixed(std::abs(value), decimals);
  if (digits.find_first_not_of("0.") == std::string::npos) return digits;
  return (value < 0 ? std::string(minus) : std::string("+")) + digits;
}

std::string human_count(double count) {
  struct Scale {
    double factor;
    std::string_view suffix;
  };
  constexpr Scale kScales[] = {{1e9, " B"}, {1e6, " M"}, {1e3, " k"}};
  const double magnitude = std::abs(count);
  for (const Scale& s : kScales) {
    // Three digits at most: 999,600 would be "1000 k", so it is "1.0 M".
    if (magnitude >= s.factor * 0.9995) {
      const double scaled = count / s.factor;
      const int decimals = std::abs(scaled) >= 99.95 ? 0 : 1;
      return fixed(scaled, decimals) + std::string(s.suffix);
    }
  }
  return fixed(count, 0);
}

std::string shorten(std::string_view text, std::size_t max_columns) {
  if (display_width(text) <= max_columns) return std::string(text);
  if (max_columns == 0) return {};
  // Keep whole code points up to max_columns - 1 columns, room for the "…".
  std::size_t end = 0;
  std::size_t columns = 0;
  while (end < text.size()) {
    std::size_t next = end + 1;
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    if (columns + display_width(text.substr(end, next - end)) > max_columns - 1) break;
    columns += display_width(text.substr(end, next - end));
    end = next;
  }
  std::string_view kept = text.substr(0, end);
  // At a word boundary when there is one: the last space, or the cut falls
  // exactly before one.
  if (end < text.size() && text[end] != ' ') {
    const std::size_t space = kept.rfind(' ');
    if (space != std::string_view::npos && space > 0) kept = kept.substr(0, space);
  }
  while (!kept.empty() && (kept.back() == ' ' || kept.back() == ',' || kept.back() == ';' || kept.back() == ':')) {
    kept.remove_suffix(1);
  }
  return std::string(kept) + "…";
}

double round_to(double value, int decimals) {
  const double f = std::pow(10.0, decimals);
  return std::round(value * f) / f;
}

}  // namespace gpuwatch
