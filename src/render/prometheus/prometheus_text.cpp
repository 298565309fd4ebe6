#include "render/prometheus/prometheus_text.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "core/device_event_kinds.h"
#include "core/metrics.h"
#include "render/prometheus/prometheus_processes.h"
#include "render/prometheus/prometheus_run.h"
#include "render/prometheus/prometheus_write.h"

namespace gpuwatch {

// A namespace of its own: unity builds put this file beside others with
// their own kNone, number() and the like.
namespace prometheus_text {
namespace {

// A stored value becomes the exposed one as value * multiply / divide: a
// percent divided by 100 is the nearest double to the ratio, where a
// multiplication by 0.01 is not.
struct UnitConversion {
  double multiply = 1;
  double divide = 1;
  bool whole = false;     // rounded down, as DCGM gives its MiB (integers)
  std::string_view unit;  // the exposed unit, in HELP; empty: the catalogue's
};

double converted(const UnitConversion& c, double value) {
  const double v = value * c.multiply / c.divide;
  return c.whole ? std::floor(v) : v;
}

constexpr UnitConversion kSame{1, 1, false, {}};
constexpr UnitConversion kPercentToRatio{1, 100, false, "0-1"};
constexpr UnitConversion kMhzToHertz{1e6, 1, false, "Hz"};
constexpr UnitConversion kBytesToMiB{1, kMiB, true, "MiB"};
constexpr UnitConversion kJoulesToMillijoules{1000, 1, false, "mJ"};

// dcgm-exporter has FB_FREE where gpuwatch keeps the total.
enum class Source : std::uint8_t { Value, TotalMinusUsed };

// HELP is the catalogue's label (core/metrics.h) and the exposed unit, with
// a note where the label alone does not say it: "Power (W)", "GPU
// utilization (0-1, of time a kernel ran)".
struct ExposedName {
  std::string_view name;  // empty: not exposed under this naming
  UnitConversion conversion;
  std::string_view note;  // after the unit in HELP
  std::string_view help;  // instead of the catalogue's label: a family of several metrics
  Source source = Source::Value;
};

constexpr ExposedName expose(std::string_view name, UnitConversion conversion, std::string_view note = {}) {
  return {name, conversion, note, {}, Source::Value};
}

// Native only: the label that tells the rows of one family apart (a
// temperature's `sensor`, an engine class's `engine`); empty key for none.
struct RowLabel {
  std::string_view key;
  std::string_view value;
};

struct SeriesRow {
  DeviceMetric metric;
  bool counter;
  RowLabel label;
  ExposedName native;
  ExposedName dcgm;
};

constexpr ExposedName kNone{};
constexpr std::string_view kTemperatureHelp = "Temperature by sensor";
constexpr std::string_view kEngineHelp = "Busy share of each engine class (DRM fdinfo; AMD and Intel)";
constexpr ExposedName kEngineFamily{"gpuwatch_gpu_engine_utilization_ratio", kPercentToRatio, {}, kEngineHelp,
                                    Source::Value};

// The one mapping from the metric catalogue (core/metrics.h) to both
// namings, in the catalogue's order (checked below). dcgm names, units and
// labels: dcgm-exporter's default counters CSV and /metrics output.
constexpr std::array<SeriesRow, kDeviceMetricCount> kSeries{{
    {DeviceMetric::GpuUtilPercent, false, {},
     expose("gpuwatch_gpu_utilization_ratio", kPercentToRatio, "of time a kernel ran"),
     expose("DCGM_FI_DEV_GPU_UTIL", kSame)},
    {DeviceMetric::MemUtilPercent, false, {},
     expose("gpuwatch_gpu_memory_utilization_ratio", kPercentToRatio, "of time memory was read or written"),
     expose("DCGM_FI_DEV_MEM_COPY_UTIL", kSame)},
    {DeviceMetric::MemUsedBytes, false, {}, expose("gpuwatch_gpu_memory_used_bytes", kSame),
     expose("DCGM_FI_DEV_FB_USED", kBytesToMiB)},
    {DeviceMetric::MemTotalBytes, false, {}, expose("gpuwatch_gpu_memory_total_bytes", kSame),
     {"DCGM_FI_DEV_FB_FREE", kBytesToMiB, {}, "Memory free", Source::TotalMinusUsed}},
    {DeviceMetric::MemReservedBytes, false, {}, expose("gpuwatch_gpu_memory_reserved_bytes", kSame),
     expose("DCGM_FI_DEV_FB_RESERVED", kBytesToMiB)},
    {DeviceMetric::PowerWatts, false, {}, expose("gpuwatch_gpu_power_watts", kSame),
     expose("DCGM_FI_DEV_POWER_USAGE", kSame)},
    {DeviceMetric::PowerLimitWatts, false, {}, expose("gpuwatch_gpu_power_limit_watts", kSame), kNone},
    {DeviceMetric::EnergyJoules, true, {},
     expose("gpuwatch_gpu_energy_joules_total", kSame, "since the driver loaded"),
     expose("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", kJoulesToMillijoules)},
    {DeviceMetric::TempGpuCelsius, false, {"sensor", "gpu"},
     {"gpuwatch_gpu_temperature_celsius", kSame, {}, kTemperatureHelp, Source::Value},
     expose("DCGM_FI_DEV_GPU_TEMP", kSame)},
    {DeviceMetric::TempMemCelsius, false, {"sensor", "memory"},
     {"gpuwatch_gpu_temperature_celsius", kSame, {}, kTemperatureHelp, Source::Value},
     expose("DCGM_FI_DEV_MEMORY_TEMP", kSame)},
    // AMD's hotspot; NVML has no such reading, so dcgm-exporter no name for it.
    {DeviceMetric::TempJunctionCelsius, false, {"sensor", "junction"},
     {"gpuwatch_gpu_temperature_celsius", kSame, {}, kTemperatureHelp, Source::Value}, kNone},
    {DeviceMetric::SmClockMhz, false, {}, expose("gpuwatch_gpu_sm_clock_hertz", kMhzToHertz),
     expose("DCGM_FI_DEV_SM_CLOCK", kSame)},
    {DeviceMetric::MemClockMhz, false, {}, expose("gpuwatch_gpu_memory_clock_hertz", kMhzToHertz),
     expose("DCGM_FI_DEV_MEM_CLOCK", kSame)},
    {DeviceMetric::SmClockMaxMhz, false, {}, expose("gpuwatch_gpu_sm_clock_max_hertz", kMhzToHertz),
     kNone},
    {DeviceMetric::MemClockMaxMhz, false, {},
     expose("gpuwatch_gpu_memory_clock_max_hertz", kMhzToHertz), kNone},
    {DeviceMetric::FanPercent, false, {}, expose("gpuwatch_gpu_fan_speed_ratio", kPercentToRatio),
     kNone},
    {DeviceMetric::PerfState, false, {}, expose("gpuwatch_gpu_performance_state", kSame, "0 is P0, the fastest"),
     kNone},
    {DeviceMetric::ClockEventReasons, false, {},
     expose("gpuwatch_gpu_clock_event_reasons", kSame, "NVML's clock-event bits"), kNone},
    {DeviceMetric::PcieLinkGen, false, {}, expose("gpuwatch_gpu_pcie_link_generation", kSame),
     kNone},
    {DeviceMetric::PcieLinkWidth, false, {}, expose("gpuwatch_gpu_pcie_link_width_lanes", kSame), kNone},
    {DeviceMetric::PcieLinkGenMax, false, {},
     expose("gpuwatch_gpu_pcie_link_generation_max", kSame), kNone},
    {DeviceMetric::PcieLinkWidthMax, false, {},
     expose("gpuwatch_gpu_pcie_link_width_max_lanes", kSame), kNone},
    {DeviceMetric::PcieTxBytesPerSec, false, {},
     expose("gpuwatch_gpu_pcie_transmit_bytes_per_second", kSame), kNone},
    {DeviceMetric::PcieRxBytesPerSec, false, {},
     expose("gpuwatch_gpu_pcie_receive_bytes_per_second", kSame), kNone},
    {DeviceMetric::SmActivePercent, false, {}, expose("gpuwatch_gpu_sm_active_ratio", kPercentToRatio),
     expose("DCGM_FI_PROF_SM_ACTIVE", kPercentToRatio)},
    {DeviceMetric::SmOccupancyPercent, false, {},
     expose("gpuwatch_gpu_sm_occupancy_ratio", kPercentToRatio),
     expose("DCGM_FI_PROF_SM_OCCUPANCY", kPercentToRatio)},
    {DeviceMetric::TensorActivePercent, false, {},
     expose("gpuwatch_gpu_tensor_active_ratio", kPercentToRatio),
     expose("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", kPercentToRatio)},
    {DeviceMetric::DramBwUtilPercent, false, {},
     expose("gpuwatch_gpu_dram_bandwidth_utilization_ratio", kPercentToRatio),
     expose("DCGM_FI_PROF_DRAM_ACTIVE", kPercentToRatio)},
    {DeviceMetric::Fp64ActivePercent, false, {}, expose("gpuwatch_gpu_fp64_active_ratio", kPercentToRatio),
     expose("DCGM_FI_PROF_PIPE_FP64_ACTIVE", kPercentToRatio)},
    {DeviceMetric::Fp32ActivePercent, false, {}, expose("gpuwatch_gpu_fp32_active_ratio", kPercentToRatio),
     expose("DCGM_FI_PROF_PIPE_FP32_ACTIVE", kPercentToRatio)},
    {DeviceMetric::Fp16ActivePercent, false, {}, expose("gpuwatch_gpu_fp16_active_ratio", kPercentToRatio),
     expose("DCGM_FI_PROF_PIPE_FP16_ACTIVE", kPercentToRatio)},
    {DeviceMetric::NvlinkTxBytesPerSec, false, {},
     expose("gpuwatch_gpu_nvlink_transmit_bytes_per_second", kSame, "all links"), kNone},
    {DeviceMetric::NvlinkRxBytesPerSec, false, {},
     expose("gpuwatch_gpu_nvlink_receive_bytes_per_second", kSame, "all links"), kNone},
    // dcgm-exporter has no engine classes (NVML's engines are not these).
    {DeviceMetric::EngineGraphicsPercent, false, {"engine", "graphics"}, kEngineFamily, kNone},
    {DeviceMetric::EngineComputePercent, false, {"engine", "compute"}, kEngineFamily, kNone},
    {DeviceMetric::EngineCopyPercent, false, {"engine", "copy"}, kEngineFamily, kNone},
    {DeviceMetric::EngineVideoPercent, false, {"engine", "video"}, kEngineFamily, kNone},
    {DeviceMetric::EngineVideoEnhancePercent, false, {"engine", "video_enhance"}, kEngineFamily, kNone},
    // The sampler's own bookkeeping, not a property of the GPU.
    {DeviceMetric::SlowReadAgeSeconds, false, {}, kNone, kNone},
}};

constexpr bool in_catalogue_order() {
  for (std::size_t i = 0; i < kSeries.size(); ++i) {
    if (static_cast<std::size_t>(kSeries[i].metric) != i) return false;
  }
  return true;
}
static_assert(in_catalogue_order(), "kSeries must list every DeviceMetric in the catalogue's order");

struct HostRow {
  HostMetric metric;
  ExposedName native;
};

// The record's process tree (Tree*) has no meaning for an exporter.
constexpr std::array<HostRow, 3> kHostSeries{{
    {HostMetric::CpuPercent, expose("gpuwatch_host_cpu_utilization_ratio", kPercentToRatio, "all cores")},
    {HostMetric::MemUsedBytes, expose("gpuwatch_host_memory_used_bytes", kSame)},
    {HostMetric::MemTotalBytes, expose("gpuwatch_host_memory_total_bytes", kSame)},
}};


// One device's facts, labels and latest values.
struct ExposedDevice {
  int index = 0;
  bool nvidia = false;  // the device events are NVML's
  PromLabels labels;
  std::optional<DeviceValues> values;  // none: not sampled yet, or lost
};

PromLabels device_labels(const DeviceInfo& d, const std::string& hostname, PrometheusNames names) {
  const std::string gpu = std::to_string(d.index);
  if (names == PrometheusNames::DcgmCompat) {
    return {{"gpu", gpu},
            {"UUID", d.uuid},
            {"pci_bus_id", d.pci_bus_id},
            {"device", "nvidia" + gpu},
            {"modelName", d.name},
            {"hostname", hostname}};
  }
  return {{"gpu", gpu}, {"uuid", d.uuid}, {"pci_bus_id", d.pci_bus_id},
          {"name", d.name}, {"vendor", d.vendor}, {"hostname", hostname}};
}

std::vector<ExposedDevice> exposed_devices(const PrometheusInput& input, PrometheusNames names) {
  std::vector<DeviceInfo> devices = input.devices;
  std::sort(devices.begin(), devices.end(), [](const DeviceInfo& a, const DeviceInfo& b) { return a.index < b.index; });
  std::vector<ExposedDevice> out;
  for (const DeviceInfo& d : devices) {
    // dcgm-exporter's names describe NVIDIA GPUs only.
    if (names == PrometheusNames::DcgmCompat && d.vendor != "NVIDIA") continue;
    ExposedDevice e;
    e.index = d.index;
    e.nvidia = d.vendor == "NVIDIA";
    e.labels = device_labels(d, input.hostname, names);
    const LiveDevice* live = input.live.device(d.index);
    if (live != nullptr && !live->lost) {
      DeviceValues values = d.static_values;
      values.merge_from(live->latest.values);
      e.values = values;
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<double> exposed_value(const ExposedName& name, DeviceMetric metric, const DeviceValues& values) {
  std::optional<double> v = values.get(metric);
  if (v && name.source == Source::TotalMinusUsed) {
    const std::optional<double> used = values.get(DeviceMetric::MemUsedBytes);
    v = used ? std::optional<double>(*v - *used) : std::nullopt;
  }
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return converted(name.conversion, *v);
}

std::string help_of(const ExposedName& name, const MetricInfo& metric) {
  MetricInfo shown = metric;
  if (!name.help.empty()) shown.label = name.help;
  return metric_help(shown, name.conversion.unit, name.note);
}

// Every family in table order, its samples together as the format requires:
// rows sharing a name (the temperatures) are one family.
void device_families(std::string& out, const std::vector<ExposedDevice>& devices, PrometheusNames names) {
  const auto exposed = [names](const SeriesRow& row) -> const ExposedName& {
    return names == PrometheusNames::DcgmCompat ? row.dcgm : row.native;
  };
  for (std::size_t first = 0; first < kSeries.size(); ++first) {
    const ExposedName& family = exposed(kSeries[first]);
    if (family.name.empty()) continue;
    const bool seen_before = std::any_of(kSeries.begin(), kSeries.begin() + static_cast<std::ptrdiff_t>(first),
                                         [&](const SeriesRow& r) { return exposed(r).name == family.name; });
    if (seen_before) continue;
    std::string body;
    for (std::size_t i = first; i < kSeries.size(); ++i) {
      const SeriesRow& row = kSeries[i];
      if (exposed(row).name != family.name) continue;
      for (const ExposedDevice& d : devices) {
        if (!d.values) continue;
        const std::optional<double> v = exposed_value(exposed(row), row.metric, *d.values);
        if (!v) continue;
        PromLabels labels = d.labels;
        if (names == PrometheusNames::Native && !row.label.key.empty()) labels.emplace_back(row.label.key, row.label.value);
        write_sample(body, family.name, labels, *v);
      }
    }
    // A family no device has is left out whole: its HELP alone would claim it.
    if (body.empty()) continue;
    family_header(out, family.name, help_of(family, info(kSeries[first].metric)), kSeries[first].counter);
    out += body;
  }
}

// Counters of the driver's own error reports, 0 included for the double-bit
// ECC errors (an alert on increase() needs the series before the first one);
// an XID's series comes with its first occurrence, since XIDs are many.
void error_families(std::string& out, const std::vector<ExposedDevice>& devices,
                    const std::map<int, DeviceErrorCounts>& errors) {
  std::string xid_body;
  std::string ecc_body;
  const DeviceErrorCounts none;
  for (const ExposedDevice& d : devices) {
    if (!d.nvidia) continue;
    const auto it = errors.find(d.index);
    const DeviceErrorCounts& counts = it == errors.end() ? none : it->second;
    for (const auto& [xid, count] : counts.xid) {
      PromLabels labels = d.labels;
      labels.emplace_back("xid", xid);
      write_sample(xid_body, "gpuwatch_gpu_xid_errors_total", labels, static_cast<double>(count));
    }
    write_sample(ecc_body, "gpuwatch_gpu_ecc_double_bit_errors_total", d.labels,
                 static_cast<double>(counts.ecc_double_bit));
  }
  if (!xid_body.empty()) {
    family_header(out, "gpuwatch_gpu_xid_errors_total",
                  "XID errors the driver reported since the exporter started, by XID number", true);
    out += xid_body;
  }
  if (!ecc_body.empty()) {
    family_header(out, "gpuwatch_gpu_ecc_double_bit_errors_total",
                  "Double-bit (uncorrectable) ECC errors the driver reported since the exporter started", true);
    out += ecc_body;
  }
}

}  // namespace
}  // namespace prometheus_text

void DeviceErrorCounts::add(const Event& event) {
  if (event.kind == kEccDoubleBitEventKind) {
    ++ecc_double_bit;
    return;
  }
  if (event.kind != kXidEventKind) return;
  // The message is xid_message()'s (backends/nvml/nvml_events.cpp):
  // "XID 79: ...", "XID 79", or words without a number.
  constexpr std::string_view kPrefix = "XID ";
  const std::string_view message = event.message;
  std::size_t digits = 0;
  if (message.substr(0, kPrefix.size()) == kPrefix) {
    while (kPrefix.size() + digits < message.size() && digits < 10 &&
           message[kPrefix.size() + digits] >= '0' && message[kPrefix.size() + digits] <= '9') {
      ++digits;
    }
  }
  ++xid[digits == 0 ? std::string("unknown") : std::string(message.substr(kPrefix.size(), digits))];
}


std::string render_prometheus(const PrometheusInput& input, PrometheusNames names) {
  using namespace prometheus_text;
  std::string out;
  family_header(out, "gpuwatch_up", "Whether gpuwatch is sampling (1)", false);
  write_sample(out, "gpuwatch_up", {}, 1);
  family_header(out, "gpuwatch_build_info", "gpuwatch's version, as a label", false);
  write_sample(out, "gpuwatch_build_info", {{"version", input.version}}, 1);
  if (!input.collectors.empty()) {
    family_header(out, "gpuwatch_collector_success", "Whether the backend's last sampling succeeded (1) or not (0)",
                  false);
    for (const CollectorStatus& c : input.collectors) {
      write_sample(out, "gpuwatch_collector_success", {{"backend", c.backend}}, c.success ? 1 : 0);
    }
  }
  const std::vector<ExposedDevice> devices = exposed_devices(input, names);
  if (names == PrometheusNames::Native && !devices.empty()) {
    family_header(out, "gpuwatch_gpu_info", "A GPU's facts, as labels (always 1)", false);
    for (const ExposedDevice& d : devices) write_sample(out, "gpuwatch_gpu_info", d.labels, 1);
  }
  device_families(out, devices, names);
  if (names == PrometheusNames::Native && input.errors) error_families(out, devices, *input.errors);
  const PromLabels host_labels{{"hostname", input.hostname}};
  for (const HostRow& row : kHostSeries) {
    const std::optional<double> v = input.live.host.latest.values.get(row.metric);
    if (!v || !std::isfinite(*v)) continue;
    family_header(out, row.native.name, help_of(row.native, info(row.metric)), false);
    write_sample(out, row.native.name, host_labels, converted(row.native.conversion, *v));
  }
  if (input.processes) {
    std::vector<int> watched;
    for (const DeviceInfo& d : input.devices) watched.push_back(d.index);
    append_process_families(out, input.live.processes, watched, input.hostname);
  }
  if (input.run) append_run_families(out, *input.run, input.hostname);
  return out;
}

}  // namespace gpuwatch
