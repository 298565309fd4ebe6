// Binary byte units, defined once: analysis, import and render all convert
// byte counts, and a unity build compiles their sources together, where a
// second file-level kMiB would collide with this one.
#pragma once

namespace gpuwatch {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * kKiB;
inline constexpr double kGiB = 1024.0 * kMiB;

}  // namespace gpuwatch
