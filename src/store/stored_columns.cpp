#include "store/stored_columns.h"

namespace gpuwatch {

namespace {

DeviceSeries load_device(Store& store, const RunInfo& run, int index, std::span<const DeviceMetric> metrics,
                         WallClock wall) {
  LoadOptions options;
  options.device_wall_clock = wall == WallClock::Load;
  options.device = index;
  options.metrics = std::vector<DeviceMetric>(metrics.begin(), metrics.end());
  options.host = false;
  RunData data = store.load(run, options);
  if (data.devices.empty()) {
    DeviceSeries none;
    none.info.index = index;
    none.values.resize(kDeviceMetricCount);
    return none;
  }
  return std::move(data.devices.front());
}

}  // namespace

DeviceSeries StoredColumns::load(int index, std::span<const DeviceMetric> metrics, WallClock wall) const {
  std::unique_ptr<Store> store;
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      store = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!store) store = Store::open(store_path_, true);
  DeviceSeries series = load_device(*store, run_, index, metrics, wall);
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(store));
  return series;
}

RunData load_run_base(Store& store, const RunInfo& run) {
  LoadOptions options;
  options.device_samples = false;
  return store.load(run, options);
}

}  // namespace gpuwatch
