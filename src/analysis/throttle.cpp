#include "analysis/throttle.h"

#include <algorithm>
#include <cmath>

#include "analysis/stats.h"

namespace gpuwatch {

std::string_view to_string(ThrottleKind kind) {
  switch (kind) {
    case ThrottleKind::Power: return "power";
    case ThrottleKind::Thermal: return "thermal";
    case ThrottleKind::Hardware: return "hardware";
    case ThrottleKind::NotThrottling: return "not throttling";
  }
  return "unknown";
}

ThrottleReport throttle_time(std::span<const std::int64_t> time_ns, std::span<const double> reasons,
                             std::int64_t max_half_gap_ns) {
  std::vector<std::int64_t> times;
  std::vector<std::uint64_t> masks;
  for (std::size_t i = 0; i < std::min(time_ns.size(), reasons.size()); ++i) {
    if (std::isnan(reasons[i]) || reasons[i] < 0) continue;
    times.push_back(time_ns[i]);
    masks.push_back(static_cast<std::uint64_t>(reasons[i]));
  }
  const std::vector<double> weight = time_weights_s(times, max_half_gap_ns);
  std::vector<WeightedMask> weighted;
  weighted.reserve(masks.size());
  for (std::size_t i = 0; i < masks.size(); ++i) weighted.push_back({masks[i], weight[i]});
  return throttle_time(weighted);
}

ThrottleReport throttle_time(std::span<const WeightedMask> masks) {
  ThrottleReport r;
  constexpr std::size_t kReasons = std::size(kThrottleReasons);
  std::vector<double> seconds(kReasons, 0.0);
  double power_s = 0;
  double thermal_s = 0;
  for (const WeightedMask& m : masks) {
    r.sampled_s += m.seconds;
    bool throttled = false;
    bool power = false;
    bool thermal = false;
    for (std::size_t k = 0; k < kReasons; ++k) {
      if ((m.mask & kThrottleReasons[k].bit) == 0) continue;
      seconds[k] += m.seconds;
      throttled |= kThrottleReasons[k].kind != ThrottleKind::NotThrottling;
      power |= kThrottleReasons[k].kind == ThrottleKind::Power;
      thermal |= kThrottleReasons[k].kind == ThrottleKind::Thermal;
    }
    if (throttled) r.throttled_s += m.seconds;
    if (power) power_s += m.seconds;
    if (thermal) thermal_s += m.seconds;
  }
  const auto percent = [&](double s) { return r.sampled_s > 0 ? s / r.sampled_s * 100 : 0.0; };
  r.throttled_percent = percent(r.throttled_s);
  r.power_percent = percent(power_s);
  r.thermal_percent = percent(thermal_s);
  for (std::size_t k = 0; k < kReasons; ++k) {
    if (seconds[k] > 0) r.by_reason.push_back({kThrottleReasons[k], seconds[k], percent(seconds[k])});
  }
  return r;
}

}  // namespace gpuwatch
