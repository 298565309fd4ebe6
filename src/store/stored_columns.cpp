#include "store/stored_columns.h"

namespace gpuwatch {

namespace {

LoadOptions device_options(int index, std::span<const DeviceMetric> metrics) {
  LoadOptions options;
  options.device = index;
  options.metrics = std::vector<DeviceMetric>(metrics.begin(), metrics.end());
  options.host = false;
  return options;
}

DeviceSeries load_device(Store& store, const RunInfo& run, const LoadOptions& options) {
  RunData data = store.load(run, options);
  if (data.devices.empty()) {
    DeviceSeries none;
    none.info.index = options.device.value_or(0);
    none.values.resize(kDeviceMetricCount);
    return none;
  }
  return std::move(data.devices.front());
}

}  // namespace

DeviceSeries StoredColumns::load_with(const LoadOptions& options) const {
  std::unique_ptr<Store> store;
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      store = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!store) store = Store::open(store_path_, true);
  DeviceSeries series = load_device(*store, run_, options);
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(store));
  return series;
}

DeviceSeries StoredColumns::load(int index, std::span<const DeviceMetric> metrics, WallClock wall) const {
  LoadOptions options = device_options(index, metrics);
  options.device_wall_clock = wall == WallClock::Load;
  return load_with(options);
}

DeviceSeries StoredColumns::load_window(int index, std::span<const DeviceMetric> metrics, std::int64_t since_mono_ns,
                                        std::int64_t until_mono_ns) const {
  LoadOptions options = device_options(index, metrics);
  options.device_wall_clock = false;
  options.since_mono_ns = since_mono_ns;
  options.until_mono_ns = until_mono_ns;
  return load_with(options);
}

RunData load_run_base(Store& store, const RunInfo& run, bool host_cores) {
  LoadOptions options;
  options.device_samples = false;
  options.host_cores = host_cores;
  return store.load(run, options);
}

}  // namespace gpuwatch
