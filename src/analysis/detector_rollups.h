// `report`'s detectors over a long run from its detector minutes
// (core/detector_minutes.h) instead of its samples (issue 25): idle gaps,
// memory trend, energy and the PCIe link, what find_idle_gaps, memory_trend,
// estimate_energy and pcie_link give from the samples, with these
// differences (tests/unit/analysis/detector_rollups_test.cpp measures them):
// sums are added in another order (last digits); the idle period's median is
// its bucket's representative (within kRollupRelativeError); the few minutes
// the minutes cannot tell about (the memory's working span and tenths at
// their edges, where a drop is possible, the power at the energy counter's
// first and last reading) are read at full resolution through the caller's
// reader, whose sample weights there are the window's own.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "analysis/energy.h"
#include "analysis/idle_gaps.h"
#include "analysis/memory_trend.h"
#include "analysis/pcie_link.h"
#include "core/detector_minutes.h"
#include "core/rollup.h"

namespace gpuwatch {

// A column's present samples over a window [since, until).
struct WindowSamples {
  std::vector<std::int64_t> time_ns;
  std::vector<double> values;
};
using ColumnWindowRead = std::function<WindowSamples(DeviceMetric, std::int64_t since_ns, std::int64_t until_ns)>;

struct MinuteDetectors {
  std::size_t samples = 0;  // the device's rows
  std::int64_t last_row_ns = 0;
  std::optional<IdleGapReport> idle_gaps;
  std::optional<MemoryTrend> memory;
  EnergyEstimate energy;
  std::optional<PcieLinkReport> pcie_link;
};

struct MinuteDetectorInput {
  std::span<const DetectorMinute> minutes;
  std::span<const ColumnRollup> memory;  // the memory column's rollups (its median)
  std::int64_t start_mono_ns = 0;
  std::optional<double> total_memory_bytes;
  std::optional<int> max_link_gen;  // the device's static facts, when known
  std::optional<int> max_link_width;
  // Reads a column at full resolution where the minutes cannot tell: the
  // memory in its working span's first and last minutes, at the edges of its
  // tenths, and where a drop is possible; the power in the minutes where the
  // energy counter's span begins and ends. Without it: whole minutes, shared
  // by time, and no drops.
  ColumnWindowRead read_window;
};

MinuteDetectors detectors_from_minutes(const MinuteDetectorInput& in);

// A device is judged from its minutes from this many samples on (about three
// hours at 10 Hz, where a minute at each edge of the memory's working span is
// under 1 % of it); shorter ones, the golden runs among them, from their
// samples, exactly as before.
inline constexpr std::uint64_t kMinuteDetectorsMinSamples = 100'000;
bool long_enough_for_minutes(std::span<const DetectorMinute> minutes);

}  // namespace gpuwatch
