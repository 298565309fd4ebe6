#include "render/plot/labels.h"

#include <ctime>
#include <map>

#include <fmt/format.h>

#include "render/units.h"

namespace gpuwatch::plot {

std::string_view metric_title(DeviceMetric m) { return info(m).label; }

std::string axis_title(std::string_view title, std::string_view unit) {
  if (unit.empty()) return std::string(title);
  return fmt::format("{} ({})", title, unit);
}

std::string device_label(const DeviceInfo& info) { return fmt::format("GPU {}", info.index); }

std::string run_label(const RunInfo& run) { return run.name.empty() ? run.id : run.name; }

std::string local_start_time(std::int64_t wall_ns) {
  const auto secs = static_cast<std::time_t>(wall_ns / 1'000'000'000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[64];
  if (std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %Z", &tm) == 0) return iso_local(wall_ns);
  return buf;
}

std::string run_subtitle(const PlotRun& data) {
  const RunInfo& run = data.base.run;
  std::string s = run.id.empty() ? std::string("run") : fmt::format("run {}", run.id);
  if (!run.name.empty()) s += fmt::format(" ({})", run.name);
  std::int64_t start = run.start_wall_ns;
  std::int64_t end = run.end_wall_ns.value_or(start);
  for (const DeviceData& d : data.devices) {
    if (d.samples == 0) continue;
    if (start == 0 || d.first_wall_ns < start) start = d.first_wall_ns;
    end = std::max(end, d.last_wall_ns);
  }
  if (start != 0) s += fmt::format(" \u00b7 started {}", local_start_time(start));
  if (end > start) s += fmt::format(" \u00b7 {}", human_duration(static_cast<double>(end - start) / 1e9));
  // "8 × NVIDIA H100 80GB HBM3", or each model with its count.
  std::map<std::string, int> models;
  for (const DeviceSeries& d : data.base.devices) ++models[d.info.name.empty() ? std::string("GPU") : d.info.name];
  for (const auto& [name, count] : models) s += fmt::format(" \u00b7 {} \u00d7 {}", count, name);
  return s;
}

std::string event_label(const Event& e) {
  std::string label = e.message.empty() ? e.kind : e.message;
  if (e.kind == "epoch") label = e.message.empty() ? std::string("epoch ends") : "epoch " + e.message;
  if (e.kind == "phase") label = e.message.empty() ? std::string("phase ends") : e.message;
  if (e.device_index) {
    const std::string gpu = fmt::format("GPU {}", *e.device_index);
    if (label.find(gpu) == std::string::npos) label = gpu + ": " + label;
  }
  return label;
}

}  // namespace gpuwatch::plot
