// A TopView with `gpus` H100-like GPUs and a history of `samples` ticks at
// 1 s: utilization ramps by GPU, memory 40 of 80 GiB, temperature read every
// other tick (a slow metric), and a host with 8 cores.
#pragma once

#include <string>

#include "core/bytes.h"
#include "render/top/top_view.h"

namespace gpuwatch::test {

inline TopView make_top_view(int gpus, std::size_t samples = 120, int processes = 3) {
  constexpr std::int64_t kSecondNs = 1'000'000'000;
  TopView view;
  view.hostname = "node1";
  view.now_mono_ns = static_cast<std::int64_t>(samples) * kSecondNs;
  for (int g = 0; g < gpus; ++g) {
    DeviceInfo info;
    info.index = g;
    info.name = "NVIDIA H100 80GB HBM3";
    info.pci_bus_id = "00000000:1" + std::to_string(g % 10) + ":00.0";
    view.devices.push_back(info);
    LiveDevice d;
    d.index = g;
    for (std::size_t i = 0; i < samples; ++i) {
      DeviceValues v;
      v.set(DeviceMetric::GpuUtilPercent, static_cast<double>((i * 7 + static_cast<std::size_t>(g) * 13) % 101));
      v.set(DeviceMetric::MemUsedBytes, 40 * kGiB);
      v.set(DeviceMetric::MemTotalBytes, 80 * kGiB);
      v.set(DeviceMetric::PowerWatts, 300 + 10.0 * g);
      if (i % 2 == 0) {
        v.set(DeviceMetric::TempGpuCelsius, 50 + g);
        v.set(DeviceMetric::PowerLimitWatts, 700);
        v.set(DeviceMetric::SmClockMhz, 1980);
        v.set(DeviceMetric::ClockEventReasons, 0);
      }
      d.mono_ns.push_back(static_cast<std::int64_t>(i + 1) * kSecondNs);
      d.values.push_back(v);
      d.latest.values.merge_from(v);
      for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
        if (v.has(static_cast<DeviceMetric>(m))) d.latest.read_mono_ns[m] = d.mono_ns.back();
      }
    }
    view.live.devices.push_back(std::move(d));
  }
  view.live.host.latest.values.set(HostMetric::CpuPercent, 45);
  view.live.host.latest.values.set(HostMetric::MemUsedBytes, 16 * kGiB);
  view.live.host.latest.values.set(HostMetric::MemTotalBytes, 64 * kGiB);
  view.live.host.core_percent = {10, 20, 30, 40, 50, 60, 70, 100};
  for (int p = 0; p < processes; ++p) {
    TopProcess row;
    row.pid = static_cast<std::uint32_t>(1000 + p);
    row.gpu = gpus > 0 ? p % gpus : 0;
    row.gpu_memory_bytes = static_cast<std::uint64_t>((p + 1) * kGiB);
    row.uid = 1000;
    row.start_ticks = 5000 + static_cast<std::uint64_t>(p);
    row.user = "alice";
    row.cpu_percent = 10.0 * (processes - p);
    row.rss_bytes = 2ULL << 30;
    row.command = "python train.py --rank " + std::to_string(p);
    view.processes.push_back(row);
  }
  sort_processes(view.processes, view.sort);
  view.all_processes = view.processes;
  return view;
}

}  // namespace gpuwatch::test
