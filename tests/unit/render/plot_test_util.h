// Synthetic runs for the plot tests: any number of GPUs, any length, with
// fast and slow metrics laid out as the store hands them over.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "store/store.h"

namespace gpuwatch::synthetic {

inline constexpr std::int64_t kStartWallNs = 1'780'000'000'000'000'000;  // 2026-05-28

struct SyntheticRun {
  std::size_t gpus = 2;
  double duration_s = 600;
  double hz = 2;
  // Utilization of GPU g at t seconds; the other metrics follow from it.
  std::function<double(std::size_t g, double t)> util = [](std::size_t g, double t) {
    return 60 + 30 * std::sin(t / 40 + static_cast<double>(g));
  };
  bool slow_metrics = true;    // temperature and clocks every tenth tick, as the sampler stores them
  bool only_plotted = false;   // leave the columns no plot reads empty (big runs)
};

inline RunData make_run(const SyntheticRun& spec, const std::string& id = "abcdef123456",
                        const std::string& name = "train") {
  RunData data;
  data.run.id = id;
  data.run.name = name;
  data.run.start_wall_ns = kStartWallNs;
  data.run.start_mono_ns = 1'000'000'000;
  data.run.interval_s = 1 / spec.hz;
  const auto n = static_cast<std::size_t>(spec.duration_s * spec.hz) + 1;
  const auto col = [](DeviceMetric m) { return static_cast<std::size_t>(m); };
  for (std::size_t g = 0; g < spec.gpus; ++g) {
    DeviceSeries s;
    s.info.index = static_cast<int>(g);
    s.info.name = "NVIDIA H100 80GB HBM3";
    s.info.static_values.set(DeviceMetric::SmClockMaxMhz, 1980);
    s.values.assign(kDeviceMetricCount, {});
    const DeviceMetric used[] = {DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes,
                                 DeviceMetric::MemTotalBytes,  DeviceMetric::PowerWatts,
                                 DeviceMetric::PowerLimitWatts, DeviceMetric::TempGpuCelsius,
                                 DeviceMetric::SmClockMhz};
    s.mono_ns.reserve(n);
    s.wall_ns.reserve(n);
    for (DeviceMetric m : used) s.values[col(m)].reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double t = static_cast<double>(i) / spec.hz;
      const auto offset = static_cast<std::int64_t>(std::llround(t * 1e9));
      s.mono_ns.push_back(data.run.start_mono_ns + offset);
      s.wall_ns.push_back(kStartWallNs + offset);
      const double u = std::clamp(spec.util(g, t), 0.0, 100.0);
      const double gib = 1024.0 * 1024.0 * 1024.0;
      s.values[col(DeviceMetric::GpuUtilPercent)].push_back(u);
      s.values[col(DeviceMetric::MemUsedBytes)].push_back(
          std::min(t / 60, 1.0) * (40 + 2 * static_cast<double>(g)) * gib);
      s.values[col(DeviceMetric::MemTotalBytes)].push_back(79.6 * gib);
      s.values[col(DeviceMetric::PowerWatts)].push_back(120 + 5.8 * u);
      s.values[col(DeviceMetric::PowerLimitWatts)].push_back(i % 10 == 0 || !spec.slow_metrics ? 700 : kNaN);
      const bool slow_tick = !spec.slow_metrics || i % 10 == 0;
      s.values[col(DeviceMetric::TempGpuCelsius)].push_back(slow_tick ? 35 + 0.3 * u : kNaN);
      s.values[col(DeviceMetric::SmClockMhz)].push_back(slow_tick ? 1980 - 2 * u : kNaN);
    }
    if (!spec.only_plotted) {
      for (auto& c : s.values) c.resize(n, kNaN);
    }
    data.devices.push_back(std::move(s));
  }
  return data;
}

}  // namespace gpuwatch::synthetic
