#include "analysis/energy.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuwatch {

namespace {

// Trapezoid of power clipped to [from_ns, to_ns], interpolating linearly at
// the edges; nullopt when no pair of samples overlaps the window.
std::optional<double> integrate_power(TimedValues power, std::int64_t max_gap_ns, std::int64_t from_ns,
                                      std::int64_t to_ns) {
  std::optional<std::size_t> prev;
  double integral = 0;
  bool any = false;
  const std::size_t n = std::min(power.time_ns.size(), power.values.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(power.values[i])) continue;
    if (prev) {
      const std::int64_t t0 = power.time_ns[*prev];
      const std::int64_t t1 = power.time_ns[i];
      const std::int64_t a = std::max(t0, from_ns);
      const std::int64_t b = std::min(t1, to_ns);
      if (t1 > t0 && b > a && (max_gap_ns <= 0 || t1 - t0 <= max_gap_ns)) {
        const double p0 = power.values[*prev];
        const double slope = (power.values[i] - p0) / static_cast<double>(t1 - t0);
        const double pa = p0 + slope * static_cast<double>(a - t0);
        const double pb = p0 + slope * static_cast<double>(b - t0);
        integral += 0.5 * (pa + pb) * static_cast<double>(b - a) / 1e9;
        any = true;
      }
    }
    prev = i;
  }
  if (!any) return std::nullopt;
  return integral;
}

}  // namespace

EnergyEstimate estimate_energy(TimedValues power, TimedValues energy, std::int64_t max_gap_ns) {
  EnergyEstimate e;
  std::optional<double> last_counter;
  std::int64_t first_time = 0;
  std::int64_t last_time = 0;
  double counter_sum = 0;
  const std::size_t n = std::min(energy.time_ns.size(), energy.values.size());
  for (std::size_t i = 0; i < n; ++i) {
    const double v = energy.values[i];
    if (std::isnan(v)) continue;
    if (last_counter) {
      // A counter that went backwards was reset (driver reload, GPU reset)
      // and has counted from zero since.
      counter_sum += v >= *last_counter ? v - *last_counter : v;
      e.counter_joules = counter_sum;
    } else {
      first_time = energy.time_ns[i];
    }
    last_counter = v;
    last_time = energy.time_ns[i];
  }
  e.integrated_joules = integrate_power(power, max_gap_ns, std::numeric_limits<std::int64_t>::min(),
                                        std::numeric_limits<std::int64_t>::max());
  if (e.counter_joules) e.integrated_counter_span_joules = integrate_power(power, max_gap_ns, first_time, last_time);
  return e;
}

}  // namespace gpuwatch
