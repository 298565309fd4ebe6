// A PCIe link running below its capability. GPUs lower the link speed when
// idle to save power, so only time spent busy counts: a busy GPU on a
// degraded link (a riser, a wrong slot, a BIOS setting) is starved of host
// bandwidth.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace gpuwatch {

struct PcieLinkReport {
  double busy_s = 0;           // time with the link known and the GPU busy
  double degraded_busy_s = 0;  // ... of which below max generation or width
  double degraded_percent = 0; // of busy_s
  int max_gen = 0;
  int max_width = 0;
  int worst_busy_gen = 0;      // lowest seen while busy (0: never busy)
  int worst_busy_width = 0;
};

struct PcieLinkInput {
  std::span<const std::int64_t> time_ns;
  std::span<const double> util_percent;
  std::span<const double> gen;
  std::span<const double> width;
  std::optional<int> max_gen;    // the device's static facts, when known
  std::optional<int> max_width;
};

inline constexpr double kBusyUtilPercent = 50;

// Nullopt when the link or its maximum was never read.
std::optional<PcieLinkReport> pcie_link(const PcieLinkInput& in);

}  // namespace gpuwatch
