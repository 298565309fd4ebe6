#include "render/slow_carry.h"

#include <cmath>

namespace gpuwatch {

void drop_carried_slow_values(DeviceValues& values) {
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    const auto metric = static_cast<DeviceMetric>(m);
    if (repeated_between_slow_reads(metric)) values.clear(metric);
  }
  values.clear(DeviceMetric::SlowReadAgeSeconds);
}

bool SlowCarry::fill(DeviceSample& sample) {
  if (sample.device_index < 0) return false;
  const auto index = static_cast<std::size_t>(sample.device_index);
  if (index >= by_device_.size()) by_device_.resize(index + 1);
  LastRead& last = by_device_[index];

  DeviceValues own;
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    const auto metric = static_cast<DeviceMetric>(m);
    if (!repeated_between_slow_reads(metric)) continue;
    if (const auto v = sample.values.get(metric)) own.set(metric, *v);
  }
  const auto age_s = sample.values.get(DeviceMetric::SlowReadAgeSeconds);
  if (!own.empty() || age_s) {
    last.values = own;
    // A usable age is one an importer accepts (0 to 3600 s) or a live one.
    last.usable = age_s && *age_s >= 0 && *age_s <= 1e6;
    if (last.usable) last.read_mono_ns = sample.time.mono_ns - std::llround(*age_s * 1e9);
    return false;
  }
  if (!last.usable || last.values.empty()) return false;
  sample.values.merge_from(last.values);
  sample.values.set(DeviceMetric::SlowReadAgeSeconds, static_cast<double>(sample.time.mono_ns - last.read_mono_ns) / 1e9);
  return true;
}

}  // namespace gpuwatch
