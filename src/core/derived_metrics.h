// The derived half of the metric catalogue (core/metrics.h has the sampled
// half): numbers gpuwatch computes from a run's samples (how long it ran,
// its GPUs' mean utilization and memory, their energy, what the training
// loop measured of its steps), named, labelled and shown the same way
// wherever they appear: `report --group`, `report --job`, the matrix summary,
// the report's and status's step timing. Adding one means one enum value and
// one table row here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/metrics.h"

namespace gpuwatch {

enum class DerivedMetric : std::uint8_t {
  DurationSeconds,     // wall clock, start to end
  GpuUtilMeanPercent,  // time-weighted mean of the mean over the GPUs
  MemUsedMeanBytes,    // time-weighted mean of the sum over the GPUs
  MemUsedPeakBytes,    // highest sum over the GPUs
  PowerMeanWatts,      // time-weighted mean of the sum over the GPUs
  EnergyJoules,        // all GPUs, from the energy counters or integrated power
  // What the training loop measured of its own steps (core/step_timing.h):
  DataWaitPercent,     // the share of each step it waited for its data
  StepTimeSeconds,     // the mean step, the wait included
  TimedSteps,          // how many steps the messages covered
  kCount
};

inline constexpr std::size_t kDerivedMetricCount = static_cast<std::size_t>(DerivedMetric::kCount);

namespace display {
inline constexpr DisplayFormat kDurationSeconds{"s", 1, 1};
}  // namespace display

// `scale` and `cadence` do not apply (a derived number is neither stored in
// fixed point nor sampled): 1 and Static. `short_label` is a table column's
// word, `label` the word in prose (both followed by the display unit), `tag`
// the word where room is short.
inline constexpr std::array<MetricInfo, kDerivedMetricCount> kDerivedMetrics{{
    {"duration_s", "s", 1, Cadence::Static, "duration", "duration", "time", display::kDurationSeconds},
    {"gpu_util_percent_mean", "%", 1, Cadence::Static, "GPU utilization", "util", "util",
     info(DeviceMetric::GpuUtilPercent).display},
    {"mem_used_bytes_mean", "B", 1, Cadence::Static, "GPU memory mean", "mem", "mem",
     info(DeviceMetric::MemUsedBytes).display},
    {"mem_used_bytes_peak", "B", 1, Cadence::Static, "GPU memory peak", "peak", "peak",
     info(DeviceMetric::MemUsedBytes).display},
    {"power_watts_mean", "W", 1, Cadence::Static, "GPU power", "power",
     "power", info(DeviceMetric::PowerWatts).display},
    {"energy_joules", "J", 1, Cadence::Static, "GPU energy", "energy",
     "energy", info(DeviceMetric::EnergyJoules).display},
    {"data_wait_percent", "%", 1, Cadence::Static, "Data wait", "data wait", "wait", display::kPercent},
    {"step_time_s", "s", 1, Cadence::Static, "Step time", "step time", "step", display::kSeconds},
    {"timed_steps", "", 1, Cadence::Static, "Timed steps", "steps", "steps", display::kPlain},
}};

constexpr const MetricInfo& info(DerivedMetric m) { return kDerivedMetrics[static_cast<std::size_t>(m)]; }

}  // namespace gpuwatch
