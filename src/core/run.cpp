// The run model's helpers: rows of the column-oriented series, for code that
// works sample by sample (exports, and writing a whole imported run), and
// cutting a run to a span.
#include "core/run.h"

#include <algorithm>
#include <cmath>

namespace gpuwatch {

std::string_view to_string(RunStatus s) {
  switch (s) {
    case RunStatus::Recording: return "recording";
    case RunStatus::Finished: return "finished";
    case RunStatus::Interrupted: return "interrupted";
  }
  return "interrupted";
}

RunData run_without_samples(const RunInfo& run, const std::vector<DeviceInfo>& devices) {
  RunData data;
  data.run = run;
  for (const DeviceInfo& d : devices) {
    DeviceSeries s;
    s.info = d;
    s.values.resize(kDeviceMetricCount);
    data.devices.push_back(std::move(s));
  }
  return data;
}

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

namespace {

template <typename Column>
void erase_front(Column& column, std::size_t n) {
  column.erase(column.begin(), column.begin() + static_cast<std::ptrdiff_t>(std::min(n, column.size())));
}

// Series share the shape: times, then columns as long as the times.
template <typename Series>
std::size_t drop_front(Series& s, std::int64_t mono_ns) {
  const auto n = static_cast<std::size_t>(std::lower_bound(s.mono_ns.begin(), s.mono_ns.end(), mono_ns) - s.mono_ns.begin());
  erase_front(s.mono_ns, n);
  erase_front(s.wall_ns, n);
  for (auto& column : s.values) erase_front(column, n);
  return n;
}

template <typename Series>
std::size_t keep_front(Series& s, std::int64_t mono_ns) {
  const auto n = static_cast<std::size_t>(std::upper_bound(s.mono_ns.begin(), s.mono_ns.end(), mono_ns) - s.mono_ns.begin());
  s.mono_ns.resize(std::min(n, s.mono_ns.size()));
  if (s.wall_ns.size() > s.mono_ns.size()) s.wall_ns.resize(s.mono_ns.size());  // empty: not loaded
  for (auto& column : s.values) {
    if (column.size() > n) column.resize(n);
  }
  return n;
}

}  // namespace

void append_sample(RunData& data, const DeviceSample& sample) {
  for (DeviceSeries& s : data.devices) {
    if (s.info.index != sample.device_index) continue;
    s.values.resize(kDeviceMetricCount);
    s.mono_ns.push_back(sample.time.mono_ns);
    s.wall_ns.push_back(sample.time.wall_ns);
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      s.values[m].push_back(sample.values.value_or_nan(static_cast<DeviceMetric>(m)));
    }
    return;
  }
}

void append_sample(RunData& data, const HostSample& sample) {
  HostSeries& h = data.host;
  h.values.resize(kHostMetricCount);
  h.mono_ns.push_back(sample.time.mono_ns);
  h.wall_ns.push_back(sample.time.wall_ns);
  for (std::size_t m = 0; m < kHostMetricCount; ++m) {
    h.values[m].push_back(sample.values.value_or_nan(static_cast<HostMetric>(m)));
  }
}

void drop_samples_after(RunData& data, std::int64_t mono_ns) {
  for (DeviceSeries& d : data.devices) keep_front(d, mono_ns);
  const std::size_t n = keep_front(data.host, mono_ns);
  for (auto& core : data.host.core_percent) {
    if (core.size() > n) core.resize(n);
  }
}

void drop_samples_before(RunData& data, std::int64_t mono_ns) {
  for (DeviceSeries& d : data.devices) drop_front(d, mono_ns);
  const std::size_t n = drop_front(data.host, mono_ns);
  for (auto& core : data.host.core_percent) erase_front(core, n);
}

}  // namespace gpuwatch
