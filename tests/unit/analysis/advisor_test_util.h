// Builds sliding windows of a run by hand for the advisor's tests: GPUs
// whose metrics are functions of the seconds since the window began, host
// metrics likewise, and the advisor run over build_report() of them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/bytes.h"
#include "analysis/advisor/advisor.h"
#include "analysis/run_report.h"

namespace gpuwatch::advisor_test {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kStartMono = 1000 * kSec;
using Curve = std::function<double(double)>;  // seconds since the start -> value

inline Curve flat(double v) {
  return [v](double) { return v; };
}

// A window of `seconds`, GPUs sampled every `interval_s`, the host every second.
struct Window {
  RunData data;
  double seconds = 60;
  double interval_s = 0.5;

  explicit Window(double window_s = 60, double interval = 0.5) : seconds(window_s), interval_s(interval) {
    data.run.start_mono_ns = kStartMono;
    data.run.start_wall_ns = 1'700'000'000 * kSec;
    data.host.values.assign(kHostMetricCount, {});
  }

  [[nodiscard]] std::size_t ticks(double interval) const {
    return static_cast<std::size_t>(std::llround(seconds / interval)) + 1;
  }

  // A GPU with `total_bytes` of memory, busy at `util` and holding `mem`.
  DeviceSeries& gpu(int index, const Curve& util, const Curve& mem, double total_bytes = 80 * kGiB) {
    DeviceSeries s;
    s.info.index = index;
    s.info.static_values.set(DeviceMetric::MemTotalBytes, total_bytes);
    s.values.assign(kDeviceMetricCount, {});
    for (std::size_t i = 0; i < ticks(interval_s); ++i) {
      const auto t_ns = static_cast<std::int64_t>(static_cast<double>(i) * interval_s * 1e9);
      s.mono_ns.push_back(kStartMono + t_ns);
      s.wall_ns.push_back(data.run.start_wall_ns + t_ns);
    }
    for (auto& column : s.values) column.assign(s.mono_ns.size(), kNaN);
    data.devices.push_back(std::move(s));
    set(index, DeviceMetric::GpuUtilPercent, util);
    set(index, DeviceMetric::MemUsedBytes, mem);
    return data.devices.back();
  }

  void set(int index, DeviceMetric metric, const Curve& f) {
    auto it = std::find_if(data.devices.begin(), data.devices.end(),
                           [&](const DeviceSeries& s) { return s.info.index == index; });
    auto& column = it->values[static_cast<std::size_t>(metric)];
    for (std::size_t i = 0; i < it->mono_ns.size(); ++i) {
      column[i] = f(static_cast<double>(it->mono_ns[i] - kStartMono) / 1e9);
    }
  }

  void host(HostMetric metric, const Curve& f) {
    if (data.host.mono_ns.empty()) {
      for (std::size_t i = 0; i < ticks(1.0); ++i) {
        data.host.mono_ns.push_back(kStartMono + static_cast<std::int64_t>(i) * kSec);
        data.host.wall_ns.push_back(data.run.start_wall_ns + static_cast<std::int64_t>(i) * kSec);
      }
      for (auto& column : data.host.values) column.assign(data.host.mono_ns.size(), kNaN);
    }
    auto& column = data.host.values[static_cast<std::size_t>(metric)];
    for (std::size_t i = 0; i < data.host.mono_ns.size(); ++i) column[i] = f(static_cast<double>(i));
  }

  void event(double at_s, std::string kind, std::string message) {
    const auto t_ns = static_cast<std::int64_t>(at_s * 1e9);
    data.events.push_back({{kStartMono + t_ns, data.run.start_wall_ns + t_ns}, std::nullopt, std::move(kind),
                           std::move(message)});
  }
};

// The advisor over the whole window; the run is `run_age_s` old.
inline std::vector<Advisory> advise_on(const RunData& data, const AdvisorConfig& config = {},
                                       double run_age_s = 600, std::span<const EpochPeak> epochs = {}) {
  const RunReport report = build_report(data);
  return advise({report, data, run_age_s, epochs}, config);
}

inline const Advisory* find(const std::vector<Advisory>& list, std::string_view id,
                            std::optional<int> device = 0) {
  auto it = std::find_if(list.begin(), list.end(),
                         [&](const Advisory& a) { return a.id == id && a.device_index == device; });
  return it == list.end() ? nullptr : &*it;
}

inline std::vector<std::string> ids(const std::vector<Advisory>& list) {
  std::vector<std::string> out;
  for (const Advisory& a : list) out.push_back(a.id);
  return out;
}

inline const Evidence* evidence(const Advisory& a, std::string_view name) {
  auto it = std::find_if(a.evidence.begin(), a.evidence.end(), [&](const Evidence& e) { return e.name == name; });
  return it == a.evidence.end() ? nullptr : &*it;
}

}  // namespace gpuwatch::advisor_test
