// Resident memory of this process, for the plain-timing benchmarks (Linux).
#pragma once

#include <fstream>
#include <string>

namespace gpuwatch::bench {

// Peak resident memory since the last reset, in MiB (VmHWM, reset by writing
// 5 to clear_refs).
inline double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      status >> kib;
      return kib / 1024;
    }
  }
  return 0;
}

inline void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

inline double current_rss_mib() {
  std::ifstream statm("/proc/self/statm");
  double pages = 0;
  double resident = 0;
  statm >> pages >> resident;
  return resident * 4096 / (1024 * 1024);
}

}  // namespace gpuwatch::bench
