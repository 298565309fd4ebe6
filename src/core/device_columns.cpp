#include "core/device_columns.h"

#include <utility>

namespace gpuwatch {

DeviceSeries RunDataColumns::load(int index, std::span<const DeviceMetric> metrics, WallClock wall) const {
  DeviceSeries out;
  out.info.index = index;
  out.values.resize(kDeviceMetricCount);
  for (const DeviceSeries& d : data_.devices) {
    if (d.info.index != index) continue;
    out.info = d.info;
    out.mono_ns = d.mono_ns;
    if (wall == WallClock::Load) out.wall_ns = d.wall_ns;
    out.lost_at_wall_ns = d.lost_at_wall_ns;
    for (DeviceMetric m : metrics) {
      const auto i = static_cast<std::size_t>(m);
      if (i < d.values.size()) out.values[i] = d.values[i];
    }
  }
  return out;
}

DeviceSeries DeviceColumns::load_window(int index, std::span<const DeviceMetric> metrics, std::int64_t since_mono_ns,
                                       std::int64_t until_mono_ns) const {
  DeviceSeries all = load(index, metrics, WallClock::Skip);
  DeviceSeries out;
  out.info = all.info;
  out.lost_at_wall_ns = all.lost_at_wall_ns;
  out.values.resize(kDeviceMetricCount);
  for (std::size_t i = 0; i < all.mono_ns.size(); ++i) {
    if (all.mono_ns[i] < since_mono_ns || all.mono_ns[i] >= until_mono_ns) continue;
    out.mono_ns.push_back(all.mono_ns[i]);
    for (std::size_t m = 0; m < all.values.size() && m < out.values.size(); ++m) {
      if (all.values[m].size() == all.mono_ns.size()) out.values[m].push_back(all.values[m][i]);
    }
  }
  return out;
}

RunData run_base(const RunData& data) {
  RunData base;
  base.run = data.run;
  base.processes = data.processes;
  base.events = data.events;
  for (const DeviceSeries& d : data.devices) {
    DeviceSeries facts;
    facts.info = d.info;
    facts.values.resize(kDeviceMetricCount);
    facts.lost_at_wall_ns = d.lost_at_wall_ns;
    base.devices.push_back(std::move(facts));
  }
  return base;
}

}  // namespace gpuwatch
