#include "store/device_columns.h"

namespace gpuwatch {

DeviceSeries RunDataColumns::load(int index, std::span<const DeviceMetric> metrics) const {
  DeviceSeries out;
  out.info.index = index;
  out.values.resize(kDeviceMetricCount);
  for (const DeviceSeries& d : data_.devices) {
    if (d.info.index != index) continue;
    out.info = d.info;
    out.mono_ns = d.mono_ns;
    out.wall_ns = d.wall_ns;
    out.lost_at_wall_ns = d.lost_at_wall_ns;
    for (DeviceMetric m : metrics) {
      const auto i = static_cast<std::size_t>(m);
      if (i < d.values.size()) out.values[i] = d.values[i];
    }
  }
  return out;
}

namespace {

DeviceSeries load_device(Store& store, const RunInfo& run, int index, std::span<const DeviceMetric> metrics) {
  LoadOptions options;
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

DeviceSeries StoredColumns::load(int index, std::span<const DeviceMetric> metrics) const {
  std::unique_ptr<Store> store;
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      store = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!store) store = Store::open(store_path_, true);
  DeviceSeries series = load_device(*store, run_, index, metrics);
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(store));
  return series;
}

RunData load_run_base(Store& store, const RunInfo& run) {
  LoadOptions options;
  options.device_samples = false;
  return store.load(run, options);
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
