#include "core/iso_time.h"

#include <ctime>

namespace gpuwatch {

namespace {

constexpr std::int64_t kNsPerSecond = 1'000'000'000;

// Reads exactly `width` digits at text[pos].
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

bool is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

// Days from 1970-01-01 to a date of year >= 1970 (at most a few hundred
// iterations: the parser accepts years up to 2200).
std::int64_t days_since_epoch(int y, int m, int d) {
  std::int64_t days = d - 1;
  for (int year = 1970; year < y; ++year) days += is_leap(year) ? 366 : 365;
  for (int month = 1; month < m; ++month) days += days_in_month(y, month);
  return days;
}

}  // namespace

std::optional<std::int64_t> parse_iso_time_ns(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS
  const auto year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  const auto hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != ' ') || text[13] != ':' ||
      text[16] != ':') {
    return std::nullopt;
  }
  if (*year < 1970 || *year > 2200 || *month < 1 || *month > 12 || *day < 1 ||
      *day > days_in_month(*year, *month) || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  std::int64_t fraction_ns = 0;
  if (pos < text.size() && text[pos] == '.') {
    std::int64_t scale = kNsPerSecond;
    std::size_t n = 0;
    for (++pos; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++n) {
      if (n >= 9) return std::nullopt;
      scale /= 10;
      fraction_ns += (text[pos] - '0') * scale;
    }
    if (n == 0) return std::nullopt;
  }
  const std::string_view zone = text.substr(pos);
  std::int64_t seconds = 0;
  if (zone.empty()) {
    std::tm tm{};
    tm.tm_year = *year - 1900;
    tm.tm_mon = *month - 1;
    tm.tm_mday = *day;
    tm.tm_hour = *hour;
    tm.tm_min = *minute;
    tm.tm_sec = *second;
    tm.tm_isdst = -1;  // let the zone rules decide, as Python's datetime did when writing
    const std::time_t t = std::mktime(&tm);
    if (t == static_cast<std::time_t>(-1)) return std::nullopt;
    seconds = static_cast<std::int64_t>(t);
  } else {
    std::int64_t offset_s = 0;
    if (zone != "Z") {
      const auto oh = digits(zone, 1, 2), om = digits(zone, 4, 2);
      if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || zone[3] != ':' || !oh || !om || *oh > 23 ||
          *om > 59) {
        return std::nullopt;
      }
      offset_s = (*oh * 3600 + *om * 60) * (zone[0] == '-' ? -1 : 1);
    }
    seconds = days_since_epoch(*year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 + *second - offset_s;
  }
  if (seconds < 0) return std::nullopt;
  return seconds * kNsPerSecond + fraction_ns;
}

}  // namespace gpuwatch
