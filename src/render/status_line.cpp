#include "render/status_line.h"

#include <fmt/format.h>

#include "render/units.h"

namespace gpuwatch {

namespace {

std::string memory_part(std::optional<double> used, std::optional<double> total) {
  if (!used || !total || *total <= 0) return "n/a";
  return fmt::format("{:.1f}/{:.1f}GB({:.1f}%)", *used / kGiB, *total / kGiB, *used / *total * 100);
}

}  // namespace

std::string format_status_line(const std::vector<DeviceSample>& latest, const HostValues& host) {
  std::string out;
  const bool numbered = latest.size() > 1;
  for (const DeviceSample& s : latest) {
    const std::string n = numbered ? fmt::format("{}", s.device_index) : "";
    const auto util = s.values.get(DeviceMetric::GpuUtilPercent);
    out += fmt::format("GPU{}: {} | VRAM{}:{} | ", n, util ? fmt::format("{:.0f}%", *util) : "n/a", n,
                       memory_part(s.values.get(DeviceMetric::MemUsedBytes), s.values.get(DeviceMetric::MemTotalBytes)));
  }
  const auto cpu = host.get(HostMetric::CpuPercent);
  out += fmt::format("CPU: {} | RAM:{}", cpu ? fmt::format("{:.1f}%", *cpu) : "n/a",
                     memory_part(host.get(HostMetric::MemUsedBytes), host.get(HostMetric::MemTotalBytes)));
  return out;
}

}  // namespace gpuwatch
