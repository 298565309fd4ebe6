#include "render/plot/scale.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

namespace gpuwatch::plot {

namespace {

// Decimals that show every multiple of `step` exactly.
int decimals_for(double step) {
  int decimals = 0;
  double scaled = step;
  while (decimals < 9 && std::abs(scaled - std::round(scaled)) > 1e-9 * std::max(1.0, scaled)) {
    scaled *= 10;
    ++decimals;
  }
  return decimals;
}

std::string clock_label(double seconds, bool with_hours, bool with_seconds) {
  const auto total = static_cast<long long>(std::llround(seconds));
  const long long h = total / 3600;
  const long long m = (total / 60) % 60;
  const long long s = total % 60;
  if (!with_hours) return fmt::format("{}:{:02}", total / 60, s);
  if (!with_seconds) return fmt::format("{}:{:02}", h, m);
  return fmt::format("{}:{:02}:{:02}", h, m, s);
}

}  // namespace

std::string format_number(double value, int decimals) {
  std::string s = fmt::format("{:.{}f}", value, decimals);
  if (s.find_first_not_of("-0.") == std::string::npos && s.front() == '-') s.erase(0, 1);
  return s;
}

double nice_step(double span, int max_intervals) {
  if (!(span > 0) || !std::isfinite(span)) return 1;
  max_intervals = std::max(max_intervals, 1);
  const double raw = span / max_intervals;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * magnitude >= raw * (1 - 1e-9)) return m * magnitude;
  }
  return 10 * magnitude;
}

Scale value_scale(double data_lo, double data_hi, int max_intervals, bool from_zero) {
  if (!std::isfinite(data_lo) || !std::isfinite(data_hi)) data_lo = data_hi = 0;
  if (data_lo > data_hi) std::swap(data_lo, data_hi);
  if (from_zero && data_lo > 0) data_lo = 0;
  if (data_hi - data_lo <= 1e-12 * std::max(1.0, std::abs(data_hi))) {
    // A flat series: centre it with some room, or 0..1 for zeros.
    const double pad = data_hi == 0 ? 1 : std::abs(data_hi) * 0.1;
    data_hi += pad;
    if (!(from_zero && data_lo == 0)) data_lo -= pad;
  }
  const double step = nice_step(data_hi - data_lo, max_intervals);
  Scale s;
  const double first = std::floor(data_lo / step + 1e-9) * step;
  const double last = std::ceil(data_hi / step - 1e-9) * step;
  const int decimals = decimals_for(step);
  for (int i = 0;; ++i) {
    const double tick = first + i * step;
    if (tick > last + step * 1e-6 || i > 1000) break;
    s.ticks.push_back(tick);
    s.labels.push_back(format_number(tick, decimals));
  }
  const double room = 0.03 * (last - first);
  s.lo = first - room;
  s.hi = last + room;
  return s;
}

TimeScale time_scale(double max_s, int max_intervals) {
  if (!(max_s > 0) || !std::isfinite(max_s)) max_s = 1;
  max_intervals = std::max(max_intervals, 1);
  TimeScale out;
  out.scale.lo = 0;
  out.scale.hi = max_s;
  if (max_s < 60) {
    // Seconds, as plain numbers.
    const double step = nice_step(max_s, max_intervals);
    const int decimals = decimals_for(step);
    for (int i = 0; i * step <= max_s * (1 + 1e-9); ++i) {
      out.scale.ticks.push_back(i * step);
      out.scale.labels.push_back(format_number(i * step, decimals));
    }
    out.title = "Elapsed time (s)";
    return out;
  }
  static constexpr std::array<double, 17> kSteps{
      1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200};
  double step = 0;
  for (const double candidate : kSteps) {
    if (max_s / candidate <= max_intervals) {
      step = candidate;
      break;
    }
  }
  if (step == 0) step = 86400 * nice_step(max_s / 86400, max_intervals);  // days
  const bool hours = max_s >= 3600;
  const bool seconds = !hours || std::fmod(step, 60) != 0;
  for (int i = 0; i * step <= max_s * (1 + 1e-9); ++i) {
    out.scale.ticks.push_back(i * step);
    out.scale.labels.push_back(clock_label(i * step, hours, seconds));
  }
  out.title = !hours ? "Elapsed time (m:ss)" : seconds ? "Elapsed time (h:mm:ss)" : "Elapsed time (h:mm)";
  return out;
}

DisplayUnit display_unit(std::string_view stored_unit, double max_abs) {
  struct Prefix {
    double factor;
    const char* name;
  };
  const auto pick = [&](std::initializer_list<Prefix> prefixes, std::string_view suffix) {
    Prefix chosen = *prefixes.begin();
    for (const Prefix& p : prefixes) {
      if (max_abs >= p.factor) chosen = p;
    }
    return DisplayUnit{chosen.factor, std::string(chosen.name) + std::string(suffix)};
  };
  constexpr double kKi = 1024;
  if (stored_unit == "B" || stored_unit == "B/s") {
    const std::string_view suffix = stored_unit == "B" ? "" : "/s";
    return pick({{1, "B"}, {kKi, "KiB"}, {kKi * kKi, "MiB"}, {kKi * kKi * kKi, "GiB"}, {kKi * kKi * kKi * kKi, "TiB"}},
                 suffix);
  }
  if (stored_unit == "J") return pick({{1, "J"}, {1e3, "kJ"}, {1e6, "MJ"}}, "");
  return {1, std::string(stored_unit)};
}

}  // namespace gpuwatch::plot
