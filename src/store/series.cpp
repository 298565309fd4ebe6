// Rows of the column-oriented series, for code that works sample by sample
// (exports, and writing a whole imported run).
#include <cmath>

#include "store/store.h"

namespace gpuwatch {

DeviceSample device_sample_at(const DeviceSeries& series, std::size_t i) {
  DeviceSample s;
  s.device_index = series.info.index;
  s.time = {series.mono_ns[i], series.wall_ns[i]};
  for (std::size_t m = 0; m < kDeviceMetricCount && m < series.values.size(); ++m) {
    if (!std::isnan(series.values[m][i])) s.values.set(static_cast<DeviceMetric>(m), series.values[m][i]);
  }
  return s;
}

HostSample host_sample_at(const HostSeries& series, std::size_t i) {
  HostSample s;
  s.time = {series.mono_ns[i], series.wall_ns[i]};
  for (std::size_t m = 0; m < kHostMetricCount && m < series.values.size(); ++m) {
    if (!std::isnan(series.values[m][i])) s.values.set(static_cast<HostMetric>(m), series.values[m][i]);
  }
  for (const auto& core : series.core_percent) s.core_percent.push_back(i < core.size() ? core[i] : kNaN);
  return s;
}

}  // namespace gpuwatch
