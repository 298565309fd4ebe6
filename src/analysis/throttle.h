// Time spent with the clocks held down, by reason. The reason bits are
// gpuwatch's, chosen equal to NVML's clock-event reasons so the NVML backend
// stores the driver's mask as it is; other backends map onto them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/throttle_reasons.h"

namespace gpuwatch {

enum class ThrottleKind { Power, Thermal, Hardware, NotThrottling };
std::string_view to_string(ThrottleKind kind);

struct ThrottleReason {
  std::uint64_t bit;
  std::string_view name;
  ThrottleKind kind;
};

// GpuIdle and the clock settings lower clocks without slowing any work, so
// they are listed but do not count as throttling.
inline constexpr ThrottleReason kThrottleReasons[] = {
    {0x1, "gpu_idle", ThrottleKind::NotThrottling},
    {0x2, "applications_clocks_setting", ThrottleKind::NotThrottling},
    {kThrottleSwPowerCap, "sw_power_cap", ThrottleKind::Power},
    {kThrottleHwSlowdown, "hw_slowdown", ThrottleKind::Hardware},
    {0x10, "sync_boost", ThrottleKind::NotThrottling},
    {kThrottleSwThermal, "sw_thermal_slowdown", ThrottleKind::Thermal},
    {kThrottleHwThermal, "hw_thermal_slowdown", ThrottleKind::Thermal},
    {0x80, "hw_power_brake_slowdown", ThrottleKind::Power},
    {0x100, "display_clock_setting", ThrottleKind::NotThrottling},
};

struct ThrottleTime {
  ThrottleReason reason;
  double seconds = 0;
  double percent = 0;  // of the time the mask was sampled
};

struct ThrottleReport {
  double sampled_s = 0;     // time covered by samples that carry the mask
  double throttled_s = 0;   // any throttling reason set
  double throttled_percent = 0;
  double power_percent = 0;
  double thermal_percent = 0;
  std::vector<ThrottleTime> by_reason;  // only reasons seen, in table order
};

// `reasons` holds the mask as a number, NaN where absent.
ThrottleReport throttle_time(std::span<const std::int64_t> time_ns, std::span<const double> reasons,
                             std::int64_t max_half_gap_ns = 0);

// The same over masks already weighted by their time: each mask and its
// seconds (the samples', or a histogram's bins of the column).
struct WeightedMask {
  std::uint64_t mask = 0;
  double seconds = 0;
};
ThrottleReport throttle_time(std::span<const WeightedMask> masks);

}  // namespace gpuwatch
