// What a live view reads: a copy of the recent past of every device and of
// the host (live/live_window.h keeps it, the sampler fills it). Plain data,
// so that render/ draws it (top, Prometheus text) without the sampler or a
// driver in sight.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/metrics.h"
#include "core/sample.h"

namespace gpuwatch {

// The last value of each metric and when it was read (monotonic ns).
template <typename Metric, std::size_t N>
struct LatestValues {
  MetricValues<Metric, N> values;
  std::array<std::int64_t, N> read_mono_ns{};

  // Seconds between the metric's reading and `now_mono_ns`; absent when it
  // was never read.
  [[nodiscard]] std::optional<double> age_seconds(Metric m, std::int64_t now_mono_ns) const {
    if (!values.has(m)) return std::nullopt;
    return static_cast<double>(now_mono_ns - read_mono_ns[static_cast<std::size_t>(m)]) / 1e9;
  }
};

struct LiveDevice {
  int index = 0;
  std::vector<std::int64_t> mono_ns;  // the history, oldest first
  std::vector<DeviceValues> values;   // one per mono_ns, as sampled (slow metrics only when read)
  LatestValues<DeviceMetric, kDeviceMetricCount> latest;
  std::optional<Timestamp> lost;      // the backend lost it then
};

struct LiveHost {
  std::vector<std::int64_t> mono_ns;
  std::vector<HostValues> values;
  LatestValues<HostMetric, kHostMetricCount> latest;
  std::vector<double> core_percent;  // the latest per-core reading
};

struct LiveSnapshot {
  std::uint64_t ticks = 0;
  std::optional<Timestamp> last_tick;
  std::vector<LiveDevice> devices;  // in the order first seen (the sampler's order)
  LiveHost host;
  std::vector<GpuProcess> processes;  // the latest process list
  std::optional<Timestamp> processes_seen;
  std::vector<Event> device_events;  // the most recent, oldest first

  [[nodiscard]] const LiveDevice* device(int index) const;
};

}  // namespace gpuwatch
