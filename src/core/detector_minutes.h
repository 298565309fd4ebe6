// Per-minute sums of what `report`'s detectors read (issue 25): idle gaps
// from utilization, the memory trend's least squares, the power integral and
// the energy counter, the PCIe link while busy. Built beside a device's
// column rollups (core/rollup.h) in the same streaming pass over its chunks,
// so that a run of weeks is judged from a few MB instead of its samples.
//
// Each sample is weighed as the detectors weigh it (half the gap to each
// neighbour, capped at 1.5x the column's median gap: the cap comes from the
// rollup build's planning pass) and lands in the minute of its time; an idle
// gap lands in the minute of the busy sample that ends it. Merged over the
// run (analysis/detector_rollups.h) the minutes give the detectors' results:
// counts, first and last times and the PCIe link exactly, sums up to the
// order of floating-point additions, the idle period's median within
// kRollupRelativeError, and the memory trend over whole minutes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/run.h"

namespace gpuwatch {

// Utilization under this is idle (analysis/idle_gaps.h's default).
inline constexpr double kIdleBelowPercent = 5;
// The PCIe link counts while the GPU is at least this busy (analysis/pcie_link.h).
inline constexpr double kLinkBusyPercent = 50;
// Power samples further apart than this are not bridged by the integral.
inline constexpr std::int64_t kEnergyPowerBridgeNs = 5'000'000'000;
// The longest idle gaps each minute keeps: the run's five longest are
// among the minutes' five longest.
inline constexpr std::size_t kLongestGapsKept = 5;

struct GapRecord {
  std::int64_t start_ns = 0;
  double duration_s = 0;
  bool operator==(const GapRecord&) const = default;
};

// Idle-gap start-to-start intervals in one bucket (core/rollup.h's keys).
struct PeriodBin {
  std::int64_t key = 0;
  std::uint64_t count = 0;
  bool operator==(const PeriodBin&) const = default;
};

struct LinkBusyTime {
  int gen = 0;
  int width = 0;
  double busy_s = 0;
  bool operator==(const LinkBusyTime&) const = default;
};

struct TimedValue {
  std::int64_t time_ns = 0;
  double value = 0;
  bool operator==(const TimedValue&) const = default;
};

struct IdleMinute {
  std::int64_t first_busy_ns = 0;  // meaningful when busy_samples > 0
  std::int64_t last_busy_ns = 0;
  std::uint64_t busy_samples = 0;
  double idle_s = 0;               // every idle sample's weight
  double idle_before_busy_s = 0;   // before the minute's first busy sample (all when none)
  double idle_after_busy_s = 0;    // after its last busy sample (all when none)
  std::uint64_t gaps = 0;          // gaps ended by a busy sample of this minute
  double gap_total_s = 0;
  std::vector<GapRecord> longest;  // up to kLongestGapsKept, longest first
  double period_sum_s = 0;         // start-to-start from the gap before each
  double period_sum_sq_s2 = 0;
  std::vector<PeriodBin> periods;  // ascending key
  bool operator==(const IdleMinute&) const = default;
};

// Time-weighted, centred: t in seconds from the minute's start.
struct MemoryMinute {
  std::uint64_t samples = 0;
  std::int64_t first_ns = 0;
  std::int64_t last_ns = 0;
  double weight_s = 0;
  double mean_t_s = 0;
  double mean_bytes = 0;
  double m2_t = 0;   // sum of w (t - mean_t)^2
  double c_tv = 0;   // sum of w (t - mean_t)(v - mean_v)
  double min_bytes = 0;
  double max_bytes = 0;
  bool operator==(const MemoryMinute&) const = default;
};

struct EnergyMinute {
  // Power: the trapezoids between samples of this minute, and its first and
  // last sample (the pairs across minutes are added when merging).
  std::optional<TimedValue> power_first;
  std::optional<TimedValue> power_last;
  double power_joules = 0;
  // The counter (time: when it was read), and its increases within the minute.
  std::optional<TimedValue> counter_first;
  std::optional<TimedValue> counter_last;
  double counter_increase_j = 0;
  bool operator==(const EnergyMinute&) const = default;
};

struct LinkMinute {
  int max_gen = 0;  // highest seen (0: none)
  int max_width = 0;
  std::vector<LinkBusyTime> busy;  // by (gen, width), ascending
  bool operator==(const LinkMinute&) const = default;
};

struct DetectorMinute {
  std::int64_t minute = 0;  // from the run's start, as ColumnRollup::minute
  std::uint64_t rows = 0;   // the device's samples (rows) in the minute
  std::int64_t last_row_ns = 0;
  std::optional<IdleMinute> idle;
  std::optional<MemoryMinute> memory;
  EnergyMinute energy;
  std::optional<LinkMinute> link;
  bool operator==(const DetectorMinute&) const = default;
};

// The median-gap caps (core/time_weights.h) of the columns the weights come from.
struct DetectorCaps {
  std::int64_t util_half_gap_ns = 1;
  std::int64_t memory_half_gap_ns = 1;
  std::int64_t link_half_gap_ns = 1;
};

// Builds a device's minutes from its rows in time order (any number of
// pieces). Each minute goes to `emit`, in order, once no later row can touch
// it (its samples' weights need their right neighbour, so a minute waits for
// every column's next sample), so that the finish of a run of weeks holds a
// few minutes, not all of them (issue 25: the recorder's memory stays flat).
class DetectorMinutesBuilder {
 public:
  using Emit = std::function<void(DetectorMinute&&)>;
  DetectorMinutesBuilder(std::int64_t start_mono_ns, DetectorCaps caps, Emit emit);
  // Without `emit`: finish() returns every minute.
  DetectorMinutesBuilder(std::int64_t start_mono_ns, DetectorCaps caps);
  ~DetectorMinutesBuilder();
  DetectorMinutesBuilder(DetectorMinutesBuilder&&) noexcept;
  DetectorMinutesBuilder& operator=(DetectorMinutesBuilder&&) noexcept;
  void add(const DeviceSeries& piece);
  std::vector<DetectorMinute> finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpuwatch
