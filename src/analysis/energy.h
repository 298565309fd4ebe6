// Energy used by one GPU during a run: from the driver's counter when it has
// one, else by integrating power over time. Both are given when both exist,
// so their agreement can be checked.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace gpuwatch {

struct EnergyEstimate {
  std::optional<double> counter_joules;     // sum of counter increases
  std::optional<double> integrated_joules;  // trapezoid over all power samples
  // The same integral over only the span the counter covers: the fair
  // comparison, since the counter is read at the slow cadence.
  std::optional<double> integrated_counter_span_joules;
  [[nodiscard]] std::optional<double> best() const {
    return counter_joules ? counter_joules : integrated_joules;
  }
};

struct TimedValues {
  std::span<const std::int64_t> time_ns;
  std::span<const double> values;  // NaN: absent
};

// A counter that goes backwards (driver reload) has restarted from zero: its
// new value is added rather than the difference subtracted. Power gaps longer than max_gap_ns are not bridged.
EnergyEstimate estimate_energy(TimedValues power_watts, TimedValues energy_joules, std::int64_t max_gap_ns);

}  // namespace gpuwatch
