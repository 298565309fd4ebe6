#include "render/top/top_json.h"

#include "render/advisories.h"
#include "render/attribution_json.h"
#include "base/json_writer.h"
#include "render/step_timing.h"
#include "render/top/process_table.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

void write_device(JsonWriter& w, const DeviceInfo& info, const LiveDevice* device, std::int64_t now) {
  w.begin_object();
  w.field("gpu", info.index).field("name", info.name).field("vendor", info.vendor).field("backend", info.backend);
  w.field("uuid", info.uuid).field("pci_bus_id", info.pci_bus_id);
  w.field("lost", device != nullptr && device->lost.has_value());
  w.field("mig_instances", info.mig_enabled.value_or(false)
                               ? std::optional<std::uint64_t>(info.mig_instances.size())
                               : std::nullopt);
  // What discovery read once (maximum clocks and link), then what was sampled.
  DeviceValues values = info.static_values;
  if (device) values.merge_from(device->latest.values);
  w.key("metrics").begin_object();
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    const auto m = static_cast<DeviceMetric>(i);
    if (m == DeviceMetric::SlowReadAgeSeconds) continue;  // ages are given per metric below
    if (const auto v = values.get(m)) w.field(gpuwatch::info(m).name, *v);
  }
  w.end_object();
  // How old each value that is not read every tick is, so a reader can tell
  // a fresh temperature from one the driver stopped giving.
  w.key("ages_seconds").begin_object();
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    const auto m = static_cast<DeviceMetric>(i);
    if (gpuwatch::info(m).cadence == Cadence::Fast || m == DeviceMetric::SlowReadAgeSeconds || !device) continue;
    if (const auto age = device->latest.age_seconds(m, now)) w.field(gpuwatch::info(m).name, round_to(*age, 3));
  }
  w.end_object();
  w.end_object();
}

// The recording run beside the GPUs: null when there is none.
void write_run(JsonWriter& w, const TopView& view) {
  w.key("run");
  if (!view.run) {
    w.null();
  } else {
    const RunStatusReport& s = *view.run;
    w.begin_object();
    w.field("id", s.run.id).field("name", s.run.name).field("status", to_string(s.run.status));
    w.field("live", s.live).field("age_s", round_to(s.age_s, 3)).field("verdict", s.verdict);
    w.key("command").begin_array();
    for (const auto& arg : s.run.command) w.value(arg);
    w.end_array();
    w.key("training").begin_object();
    w.field("epoch", s.progress_now.epoch).field("step", s.progress_now.step).field("loss", s.progress_now.loss);
    w.field("steps_per_second", s.steps_per_second);
    write_step_timing(w, "step_timing", s.step_timing_now);
    w.end_object();
    w.key("advisories");
    write_advisories_json(w, s.advisories);
    w.end_object();
  }
  if (!view.run_error.empty()) w.field("run_error", view.run_error);
}

}  // namespace

std::string render_top_json(const TopView& view) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kTopJsonSchemaVersion);
  w.field("time", iso_utc_ms(view.now_wall_ns)).field("hostname", view.hostname).field("interval_s", view.interval_s);
  write_run(w, view);
  w.key("gpus").begin_array();
  for (const DeviceInfo& info : view.devices) write_device(w, info, view.live.device(info.index), view.now_mono_ns);
  w.end_array();
  w.key("notes").begin_array();
  for (const auto& note : view.notes) w.value(note);
  w.end_array();
  // The newest device events the live window kept, oldest first.
  w.key("device_events").begin_array();
  for (const Event& e : view.live.device_events) {
    w.begin_object();
    w.field("time", iso_utc_ms(e.time.wall_ns)).field("gpu", e.device_index).field("kind", e.kind);
    w.field("message", e.message);
    w.end_object();
  }
  w.end_array();
  const auto& host = view.live.host.latest.values;
  w.key("host").begin_object();
  for (std::size_t i = 0; i < kHostMetricCount; ++i) {
    const auto m = static_cast<HostMetric>(i);
    if (const auto v = host.get(m)) w.field(gpuwatch::info(m).name, *v);
  }
  w.key("core_percent").begin_array();
  for (double c : view.live.host.core_percent) w.value(c);
  w.end_array();
  w.end_object();
  w.field("hidden_processes", static_cast<std::uint64_t>(view.hidden_processes));
  w.key("processes").begin_array();
  for (const TopProcess& p : view.processes) {
    w.begin_object();
    w.field("pid", static_cast<std::uint64_t>(p.pid)).field("gpu", p.gpu).field("kind", p.kind);
    w.field("gpu_memory_bytes", p.gpu_memory_bytes).field("gpu_percent", p.gpu_percent);
    w.field("user", p.user).field("cpu_percent", p.cpu_percent ? std::optional(round_to(*p.cpu_percent, 1)) : std::nullopt).field("rss_bytes", p.rss_bytes);
    w.field("command", p.command);
    write_attribution(w, p.attribution);
    w.field("other_pid_namespace", p.other_pid_namespace);
    w.end_object();
  }
  w.end_array();
  // The processes grouped by owner, as the owner rows show them; there
  // whatever the screen's mode.
  write_owner_groups(w, owner_groups(view.processes, view.sort));
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace gpuwatch
