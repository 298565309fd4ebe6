#include "core/slow_carry.h"

#include <cmath>

namespace gpuwatch {

void drop_carried_slow_values(DeviceValues& values) {
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    const auto metric = static_cast<DeviceMetric>(m);
    if (repeated_between_slow_reads(metric)) values.clear(metric);
  }
  values.clear(DeviceMetric::SlowReadAgeSeconds);
}

SlowCarry::LastRead& SlowCarry::last_read(int device_index) {
  const auto index = static_cast<std::size_t>(device_index);
  if (index >= by_device_.size()) by_device_.resize(index + 1);
  return by_device_[index];
}

bool SlowCarry::take_own_read(const DeviceSample& sample, LastRead& last) {
  DeviceValues own;
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    const auto metric = static_cast<DeviceMetric>(m);
    if (!repeated_between_slow_reads(metric)) continue;
    if (const auto v = sample.values.get(metric)) own.set(metric, *v);
  }
  const auto age_s = sample.values.get(DeviceMetric::SlowReadAgeSeconds);
  if (own.empty() && !age_s) return false;
  last.values = own;
  // A usable age is one an importer accepts (0 to 3600 s) or a live one.
  last.usable = age_s && *age_s >= 0 && *age_s <= 1e6;
  if (last.usable) last.read_mono_ns = sample.time.mono_ns - std::llround(*age_s * 1e9);
  return true;
}

bool SlowCarry::fill(DeviceSample& sample) {
  if (sample.device_index < 0) return false;
  LastRead& last = last_read(sample.device_index);
  if (take_own_read(sample, last)) return false;
  if (!last.usable || last.values.empty()) return false;
  sample.values.merge_from(last.values);
  // Negative before the read itself (carry_back).
  const auto age_ns = sample.time.mono_ns - last.read_mono_ns;
  sample.values.set(DeviceMetric::SlowReadAgeSeconds, static_cast<double>(age_ns) / 1e9);
  return true;
}

void SlowCarry::carry_back(const DeviceSample& first_read) {
  if (first_read.device_index < 0) return;
  LastRead read;
  if (take_own_read(first_read, read) && read.usable) last_read(first_read.device_index) = read;
}

}  // namespace gpuwatch
