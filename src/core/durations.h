// Nanoseconds per second, defined once: times are int64 nanoseconds
// throughout, and a unity build compiles the sources of several layers
// together, where a second file-level kSecondNs would collide with this one.
#pragma once

#include <cstdint>

namespace gpuwatch {

inline constexpr std::int64_t kSecondNs = 1'000'000'000;

}  // namespace gpuwatch
