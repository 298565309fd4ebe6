// Builds RunData in memory for the comparison and group tests: runs whose
// samples are given as plain arrays, one value per tick.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "store/store.h"

namespace gpuwatch::run_data_test {

constexpr std::int64_t kSec = 1'000'000'000;
// Runs start at an arbitrary monotonic time: elapsed time must not depend on it.
constexpr std::int64_t kStartMono = 5000 * kSec;

inline RunData make_run(const std::string& name, const std::string& id, std::int64_t start_wall_s = 1'700'000'000) {
  RunData d;
  d.run.name = name;
  d.run.id = id;
  d.run.start_mono_ns = kStartMono;
  d.run.start_wall_ns = start_wall_s * kSec;
  d.run.status = RunStatus::Finished;
  d.run.exit_code = 0;
  d.host.values.assign(kHostMetricCount, {});
  return d;
}

// Sets one metric of GPU `gpu` (created on first use) to `values`, one per
// tick `interval_s` apart from the run's start; other metrics are absent.
inline void set_device(RunData& d, int gpu, DeviceMetric metric, std::span<const double> values,
                       double interval_s = 1.0) {
  while (d.devices.size() <= static_cast<std::size_t>(gpu)) {
    DeviceSeries s;
    s.info.index = static_cast<int>(d.devices.size());
    s.values.assign(kDeviceMetricCount, {});
    d.devices.push_back(std::move(s));
  }
  DeviceSeries& s = d.devices[static_cast<std::size_t>(gpu)];
  if (s.mono_ns.size() < values.size()) {
    s.mono_ns.clear();
    s.wall_ns.clear();
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto t = static_cast<std::int64_t>(static_cast<double>(i) * interval_s * 1e9);
      s.mono_ns.push_back(kStartMono + t);
      s.wall_ns.push_back(d.run.start_wall_ns + t);
    }
    for (auto& column : s.values) column.resize(values.size(), kNaN);
  }
  auto& column = s.values[static_cast<std::size_t>(metric)];
  column.assign(s.mono_ns.size(), kNaN);
  std::copy(values.begin(), values.end(), column.begin());
}

inline std::vector<double> constant(std::size_t n, double v) { return std::vector<double>(n, v); }

inline std::vector<double> white_noise(std::size_t n, double mean, double sd, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> dist(mean, sd);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(dist(rng));
  return out;
}

// x[t] = mean + phi·(x[t−1] − mean) + e[t], with e ~ N(0, sd).
inline std::vector<double> ar1(std::size_t n, double mean, double phi, double sd, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> dist(0, sd);
  std::vector<double> out;
  double x = 0;
  for (std::size_t i = 0; i < n + 200; ++i) {  // 200 steps to forget the start
    x = phi * x + dist(rng);
    if (i >= 200) out.push_back(mean + x);
  }
  return out;
}

}  // namespace gpuwatch::run_data_test
