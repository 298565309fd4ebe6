#include "render/status_line.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "render/units.h"

namespace gpuwatch {

namespace {

std::string memory_part(std::optional<double> used, std::optional<double> total) {
  if (!used || !total || *total <= 0) return "n/a";
  return fmt::format("{:.1f}/{:.1f}GB({:.1f}%)", *used / kGiB, *total / kGiB, *used / *total * 100);
}

std::optional<double> share_percent(std::optional<double> used, std::optional<double> total) {
  if (!used || !total || *total <= 0) return std::nullopt;
  return *used / *total * 100;
}

std::string percent_or_na(std::optional<double> v) { return v ? fmt::format("{:.0f}%", *v) : "n/a"; }

std::optional<double> memory_share(const DeviceValues& v) {
  return share_percent(v.get(DeviceMetric::MemUsedBytes), v.get(DeviceMetric::MemTotalBytes));
}

std::string host_compact(const HostValues& host) {
  return fmt::format("CPU {} | RAM {}", percent_or_na(host.get(HostMetric::CpuPercent)),
                     percent_or_na(share_percent(host.get(HostMetric::MemUsedBytes), host.get(HostMetric::MemTotalBytes))));
}

std::string seed_line(const std::vector<DeviceSample>& latest, const HostValues& host) {
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

std::string compact_line(const std::vector<DeviceSample>& latest, const HostValues& host) {
  std::string util = "GPU";
  std::string memory = "VRAM";
  for (const DeviceSample& s : latest) {
    util += " " + percent_or_na(s.values.get(DeviceMetric::GpuUtilPercent));
    memory += " " + percent_or_na(memory_share(s.values));
  }
  return util + " | " + memory + " | " + host_compact(host);
}

// Mean, lowest and highest utilization; memory as the share of all GPUs'
// memory together. GPUs without a value are left out of each.
std::string summed_line(const std::vector<DeviceSample>& latest, const HostValues& host) {
  double util_sum = 0, util_min = 0, util_max = 0, used = 0, total = 0;
  std::size_t with_util = 0;
  for (const DeviceSample& s : latest) {
    if (const auto u = s.values.get(DeviceMetric::GpuUtilPercent)) {
      util_min = with_util == 0 ? *u : std::min(util_min, *u);
      util_max = with_util == 0 ? *u : std::max(util_max, *u);
      util_sum += *u;
      ++with_util;
    }
    const auto u = s.values.get(DeviceMetric::MemUsedBytes);
    const auto t = s.values.get(DeviceMetric::MemTotalBytes);
    if (u && t && *t > 0) {
      used += *u;
      total += *t;
    }
  }
  const std::string util =
      with_util == 0 ? "n/a"
                     : fmt::format("{:.0f}% ({:.0f}-{:.0f}%)", util_sum / static_cast<double>(with_util), util_min, util_max);
  return fmt::format("{} GPUs: {} | VRAM {} | {}", latest.size(), util,
                     percent_or_na(total > 0 ? std::optional<double>(used / total * 100) : std::nullopt),
                     host_compact(host));
}

// " | epoch 3 step 1200", or "" before the training said either.
std::string progress_part(const StatusProgress& p) {
  std::string out;
  if (p.epoch) out += fmt::format(" epoch {}", *p.epoch);
  if (p.step) out += fmt::format(" step {}", *p.step);
  return out.empty() ? out : " |" + out;
}

}  // namespace

std::string format_status_line(const std::vector<DeviceSample>& latest, const HostValues& host, std::size_t width,
                               const StatusProgress& progress) {
  // The lines are ASCII: their size is their width.
  const std::string suffix = progress_part(progress);
  std::string line = seed_line(latest, host) + suffix;
  if (width == 0 || line.size() <= width) return line;
  line = compact_line(latest, host) + suffix;
  if (line.size() > width && latest.size() > 1) line = summed_line(latest, host) + suffix;
  if (line.size() > width) line.resize(width);
  return line;
}

}  // namespace gpuwatch
