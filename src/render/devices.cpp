#include "render/devices.h"

#include <fmt/format.h>

#include "base/json_writer.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

// "enabled, 2 instances" and one line per instance: what CUDA_VISIBLE_DEVICES
// takes (the MIG- UUID), how much memory each slice has, and its instance ids.
// Memory and clocks in the catalogue's units and scales (core/metrics.h).
const DisplayFormat& memory_format() { return info(DeviceMetric::MemTotalBytes).display; }

std::string clock_text(std::optional<double> mhz) {
  return mhz ? display_text(info(DeviceMetric::SmClockMaxMhz).display, *mhz) : "n/a";
}

std::string mig_text(const DeviceInfo& d) {
  if (!d.mig_enabled) return {};
  if (!*d.mig_enabled) return "  MIG         disabled\n";
  const std::size_t n = d.mig_instances.size();
  std::string out = fmt::format("  MIG         enabled, {} instance{}\n", n, n == 1 ? "" : "s");
  for (const MigInstance& m : d.mig_instances) {
    out += fmt::format("    {}  {}", m.uuid.empty() ? "(no uuid)" : m.uuid, m.name.empty() ? "MIG device" : m.name);
    if (m.memory_total_bytes) out += "  " + display_text(memory_format(), static_cast<double>(*m.memory_total_bytes));
    if (m.gpu_instance_id) out += fmt::format("  GPU instance {}", *m.gpu_instance_id);
    if (m.compute_instance_id) out += fmt::format("  compute instance {}", *m.compute_instance_id);
    out += "\n";
  }
  return out;
}

std::optional<std::uint64_t> widen(std::optional<unsigned> id) {
  return id ? std::optional<std::uint64_t>(*id) : std::nullopt;
}

// null where the GPU has no MIG at all.
void write_mig_json(JsonWriter& w, const DeviceInfo& d) {
  w.key("mig");
  if (!d.mig_enabled) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("enabled", *d.mig_enabled);
  w.key("instances").begin_array();
  for (const MigInstance& m : d.mig_instances) {
    w.begin_object();
    w.field("name", m.name).field("uuid", m.uuid).field("memory_total_bytes", m.memory_total_bytes);
    w.field("gpu_instance_id", widen(m.gpu_instance_id)).field("compute_instance_id", widen(m.compute_instance_id));
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

std::string render_devices_text(const std::vector<DeviceInfo>& devices, const std::vector<std::string>& notes) {
  std::string out;
  for (const DeviceInfo& d : devices) {
    out += fmt::format("GPU {}  {}  ({} via {})\n", d.index, d.name, d.vendor, d.backend);
    if (!d.uuid.empty()) out += fmt::format("  uuid        {}\n", d.uuid);
    if (!d.pci_bus_id.empty()) out += fmt::format("  pci         {}\n", d.pci_bus_id);
    if (!d.driver_version.empty()) out += fmt::format("  driver      {}\n", d.driver_version);
    if (auto total = d.static_values.get(DeviceMetric::MemTotalBytes)) {
      out += fmt::format("  memory      {}\n", display_text(memory_format(), *total));
    }
    auto sm = d.static_values.get(DeviceMetric::SmClockMaxMhz);
    auto mem = d.static_values.get(DeviceMetric::MemClockMaxMhz);
    if (sm || mem) {
      out += fmt::format("  max clocks  SM {}, memory {}\n", clock_text(sm), clock_text(mem));
    }
    auto gen = d.static_values.get(DeviceMetric::PcieLinkGenMax);
    auto width = d.static_values.get(DeviceMetric::PcieLinkWidthMax);
    if (gen && width) out += fmt::format("  PCIe max    gen {:.0f} x{:.0f}\n", *gen, *width);
    out += mig_text(d);
    std::string metrics;
    for (DeviceMetric m : d.supported) metrics += fmt::format("{}{}", metrics.empty() ? "" : " ", info(m).name);
    out += fmt::format("  metrics     {}\n", metrics.empty() ? "none" : metrics);
  }
  if (devices.empty()) out += "No GPU found.\n";
  for (const std::string& note : notes) out += fmt::format("note: {}\n", note);
  return out;
}

std::string render_devices_json(const std::vector<DeviceInfo>& devices, const std::vector<std::string>& notes) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kDevicesJsonSchemaVersion);
  w.key("devices").begin_array();
  for (const DeviceInfo& d : devices) {
    w.begin_object();
    w.field("gpu", d.index);
    w.field("name", d.name);
    w.field("vendor", d.vendor);
    w.field("backend", d.backend);
    w.field("uuid", d.uuid);
    w.field("pci_bus_id", d.pci_bus_id);
    w.field("driver_version", d.driver_version);
    w.key("static").begin_object();
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      if (auto v = d.static_values.get(static_cast<DeviceMetric>(m))) w.field(kDeviceMetrics[m].name, *v);
    }
    w.end_object();
    w.key("metrics").begin_array();
    for (DeviceMetric m : d.supported) w.value(info(m).name);
    w.end_array();
    write_mig_json(w, d);
    w.end_object();
  }
  w.end_array();
  w.key("notes").begin_array();
  for (const std::string& note : notes) w.value(note);
  w.end_array();
  w.end_object();
  out.push_back('\n');
  return out;
}

std::string render_devices(const std::vector<DeviceInfo>& devices, const std::vector<std::string>& notes,
                           OutputFormat format) {
  return format == OutputFormat::json ? render_devices_json(devices, notes) : render_devices_text(devices, notes);
}

}  // namespace gpuwatch
