// The bits of the ClockEventReasons metric: NVML's clock-event reasons, so
// that the NVML backend stores the driver's mask as it is; other backends
// map their drivers' reasons onto them. analysis/throttle.h names them all.
#pragma once

#include <cstdint>

namespace gpuwatch {

inline constexpr std::uint64_t kThrottleSwPowerCap = 0x4;
inline constexpr std::uint64_t kThrottleHwSlowdown = 0x8;
inline constexpr std::uint64_t kThrottleSwThermal = 0x20;
inline constexpr std::uint64_t kThrottleHwThermal = 0x40;

}  // namespace gpuwatch
