#include "core/metrics.h"

namespace gpuwatch {

std::optional<DeviceMetric> device_metric_by_name(std::string_view name) {
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    if (kDeviceMetrics[i].name == name) return static_cast<DeviceMetric>(i);
  }
  return std::nullopt;
}

}  // namespace gpuwatch
