#include "render/seed_files.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "core/utf8.h"
#include "base/json_writer.h"
#include "render/sample_format.h"
#include "core/slow_carry.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

double elapsed(const RunData& run, std::int64_t mono_ns) {
  return round_to(static_cast<double>(mono_ns - run.run.start_mono_ns) / 1e9, 3);
}

// gputop.py's gpu_type: "nvidia", "amd", "intel" (lowercase, as it wrote
// them; the importer reads any case).
std::string gpu_type(std::string_view vendor) {
  std::string out(vendor);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// gputop.py's `temperatures` object, where a GPU has more than one sensor:
// its hwmon labels as gputop.py spelled them ("Edge", "Junction", "Memory"
// on AMD; "GPU" for NVIDIA's and Intel's one die sensor). An AMD card
// without an edge sensor (MI300X) stores the junction as its GPU
// temperature too: that copy is not written as an "Edge" it does not have
// (the importer takes a lone junction as the GPU temperature again).
void write_temperatures(JsonWriter& w, const DeviceInfo& info, const DeviceValues& v) {
  const auto gpu = v.get(DeviceMetric::TempGpuCelsius);
  const auto junction = v.get(DeviceMetric::TempJunctionCelsius);
  const auto mem = v.get(DeviceMetric::TempMemCelsius);
  const bool gpu_is_junction = gpu && junction && *gpu == *junction;
  const int sensors = (gpu && !gpu_is_junction ? 1 : 0) + (junction ? 1 : 0) + (mem ? 1 : 0);
  if (sensors < 2) return;
  w.key("temperatures").begin_object();
  if (gpu && !gpu_is_junction) w.field(gpu_type(info.vendor) == "amd" ? "Edge" : "GPU", round_to(*gpu, 1));
  if (junction) w.field("Junction", round_to(*junction, 1));
  if (mem) w.field("Memory", round_to(*mem, 1));
  w.end_object();
}

// The per-GPU fields both seed formats share. Absent values are null, never
// 0. A temperature repeated from an earlier read (core/slow_carry.h) comes
// with its age and the mark, as in jsonl.
void write_gpu_fields(JsonWriter& w, const DeviceInfo& info, const DeviceValues& v, bool carried) {
  const double used = v.value_or_nan(DeviceMetric::MemUsedBytes);
  const double total = v.value_or_nan(DeviceMetric::MemTotalBytes);
  w.field("gpu_index", info.index);
  w.field("gpu_name", info.name);
  w.field("gpu_type", gpu_type(info.vendor));
  w.field("utilization", round_to(v.value_or_nan(DeviceMetric::GpuUtilPercent), 1));
  w.field("memory_used", round_to(used / kMiB, 1));
  w.field("memory_total", round_to(total / kMiB, 1));
  w.field("memory_percent", total > 0 ? round_to(used / total * 100, 1) : kNaN);
  w.field("power", round_to(v.value_or_nan(DeviceMetric::PowerWatts), 1));
  w.field("temperature", round_to(v.value_or_nan(DeviceMetric::TempGpuCelsius), 1));
  write_temperatures(w, info, v);
  if (carried) {
    w.field("slow_read_age_seconds", round_to(v.value_or_nan(DeviceMetric::SlowReadAgeSeconds), 3));
    w.field(kSlowValuesCarriedField, true);
  }
}

// One stored row as written: with the device's last slow read repeated.
struct ShownRow {
  DeviceSample sample;
  bool carried = false;
};
ShownRow shown_row(SlowCarry& carry, const DeviceSeries& s, std::size_t i) {
  ShownRow row{device_sample_at(s, i)};
  row.carried = carry.fill(row.sample);
  return row;
}

// Each exported device's first slow read, handed to `carry_back` (a
// SlowCarry's or a formatter's): the first tick precedes the first slow read,
// and rows written for the seed tools' scripts must all have a temperature.
template <typename CarryBack>
void carry_back_first_reads(const RunData& run, std::optional<int> gpu, const CarryBack& carry_back) {
  constexpr auto kAge = static_cast<std::size_t>(DeviceMetric::SlowReadAgeSeconds);
  for (const DeviceSeries& s : run.devices) {
    if ((gpu && s.info.index != *gpu) || s.values.size() <= kAge) continue;
    const std::vector<double>& age = s.values[kAge];
    const auto first = std::find_if(age.begin(), age.end(), [](double v) { return !std::isnan(v); });
    if (first != age.end()) carry_back(device_sample_at(s, static_cast<std::size_t>(first - age.begin())));
  }
}

// (mono time, device position, sample position) for every stored sample, by time.
struct RowRef {
  std::int64_t mono_ns;
  std::size_t device;
  std::size_t row;
};
std::vector<RowRef> rows_by_time(const RunData& run, std::optional<int> gpu) {
  std::vector<RowRef> rows;
  for (std::size_t d = 0; d < run.devices.size(); ++d) {
    if (gpu && run.devices[d].info.index != *gpu) continue;
    for (std::size_t i = 0; i < run.devices[d].mono_ns.size(); ++i) rows.push_back({run.devices[d].mono_ns[i], d, i});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const RowRef& a, const RowRef& b) { return a.mono_ns < b.mono_ns; });
  return rows;
}

}  // namespace

std::string file_name_part(std::string_view name) {
  constexpr std::size_t kMaxBytes = 120;  // the rest of the name fits the usual 255-byte limit
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    const std::size_t n = utf8_sequence_length(name, i);
    const auto c = static_cast<unsigned char>(name[i]);
    std::string_view piece = name.substr(i, n);
    bool unsafe = n == 0 || (n == 1 && (c <= 0x20 || c == 0x7F || std::string_view("/\\<>:\"|?*").find(name[i]) !=
                                                                      std::string_view::npos));
    // C1 controls (U+0080-U+009F) and U+2028/U+2029 break lines in terminals.
    if (n == 2 && c == 0xC2 && static_cast<unsigned char>(name[i + 1]) < 0xA0) unsafe = true;
    if (n == 3 && name.substr(i, 2) == "\xE2\x80" && (name[i + 2] == '\xA8' || name[i + 2] == '\xA9')) unsafe = true;
    if (out.empty() && n == 1 && (c == '.' || c == '-')) unsafe = true;
    if (unsafe) piece = "_";
    if (out.size() + piece.size() > kMaxBytes) break;
    out += piece;
    i += std::max<std::size_t>(n, 1);
  }
  return out.empty() ? "run" : out;
}

void write_seed_single_json(const RunData& run, std::optional<int> gpu, const TextSink& emit) {
  emit("[");
  bool first = true;
  std::string buf;
  SlowCarry carry;
  carry_back_first_reads(run, gpu, [&carry](const DeviceSample& read) { carry.carry_back(read); });
  for (const RowRef& r : rows_by_time(run, gpu)) {
    const DeviceSeries& s = run.devices[r.device];
    const ShownRow row = shown_row(carry, s, r.row);
    buf.clear();
    buf += first ? "\n  " : ",\n  ";
    first = false;
    JsonWriter w(buf);
    w.begin_object();
    w.field("timestamp", iso_local(s.wall_ns[r.row]));
    write_gpu_fields(w, s.info, row.sample.values, row.carried);
    w.field("elapsed_seconds", elapsed(run, r.mono_ns));
    w.end_object();
    emit(buf);
  }
  emit(first ? "]\n" : "\n]\n");
}

void write_seed_multi_json(const RunData& run, const TextSink& emit) {
  // Devices sampled in one tick share its timestamp exactly.
  std::map<std::int64_t, std::vector<std::pair<std::size_t, std::size_t>>> ticks;
  for (const RowRef& r : rows_by_time(run, std::nullopt)) ticks[r.mono_ns].emplace_back(r.device, r.row);
  emit("[");
  bool first = true;
  std::string buf;
  SlowCarry carry;
  carry_back_first_reads(run, std::nullopt, [&carry](const DeviceSample& read) { carry.carry_back(read); });
  for (const auto& [mono, members] : ticks) {
    buf.clear();
    buf += first ? "\n  " : ",\n  ";
    first = false;
    JsonWriter w(buf);
    w.begin_object();
    const DeviceSeries& s0 = run.devices[members.front().first];
    w.field("timestamp", iso_local(s0.wall_ns[members.front().second]));
    w.field("elapsed_seconds", elapsed(run, mono));
    // Sums over the GPUs that reported the value; null when none did.
    struct Sum {
      double total = 0;
      std::size_t n = 0;
      void add(double v) {
        if (std::isnan(v)) return;
        total += v;
        ++n;
      }
      [[nodiscard]] double or_nan() const { return n ? total : kNaN; }
    };
    Sum used, total, util, power;
    double max_temp = kNaN;
    w.key("multi_gpu_data").begin_array();
    for (auto [d, i] : members) {
      const DeviceSeries& s = run.devices[d];
      const ShownRow row = shown_row(carry, s, i);
      const DeviceValues& v = row.sample.values;
      w.begin_object();
      write_gpu_fields(w, s.info, v, row.carried);
      w.end_object();
      used.add(v.value_or_nan(DeviceMetric::MemUsedBytes));
      total.add(v.value_or_nan(DeviceMetric::MemTotalBytes));
      power.add(v.value_or_nan(DeviceMetric::PowerWatts));
      util.add(v.value_or_nan(DeviceMetric::GpuUtilPercent));
      if (double t = v.value_or_nan(DeviceMetric::TempGpuCelsius); !std::isnan(t)) {
        max_temp = std::isnan(max_temp) ? t : std::max(max_temp, t);
      }
    }
    w.end_array();
    w.key("aggregate_stats").begin_object();
    w.field("total_memory_used", round_to(used.or_nan() / kMiB, 1));
    w.field("total_memory_total", round_to(total.or_nan() / kMiB, 1));
    w.field("total_memory_percent", total.total > 0 ? round_to(used.total / total.total * 100, 1) : kNaN);
    w.field("average_utilization", util.n ? round_to(util.total / static_cast<double>(util.n), 1) : kNaN);
    w.field("total_power", round_to(power.or_nan(), 1));
    w.field("max_temperature", max_temp);
    w.field("gpu_count", static_cast<std::uint64_t>(members.size()));
    w.end_object();
    w.end_object();
    emit(buf);
  }
  emit(first ? "]\n" : "\n]\n");
}

void write_sample_rows(const RunData& run, OutputFormat format, const TextSink& emit) {
  auto formatter = make_sample_formatter(format);
  if (!formatter) return;
  std::string buf;
  carry_back_first_reads(run, std::nullopt, [&formatter](const DeviceSample& read) { formatter->carry_back(read); });
  formatter->begin(buf);
  const std::int64_t start = run.run.start_mono_ns;
  // Events interleave by their wall time (only jsonl prints them): an event
  // stamped as the run began can read a few ms later on the wall clock than
  // the first sample, whose wall time the sampler derives from its tick.
  std::vector<const Event*> events;
  for (const Event& e : run.events) events.push_back(&e);
  std::stable_sort(events.begin(), events.end(),
                   [](const Event* a, const Event* b) { return a->time.wall_ns < b->time.wall_ns; });
  std::size_t host_i = 0;
  std::size_t event_i = 0;
  const auto until = [&](std::int64_t mono_ns, std::int64_t wall_ns) {
    // Host rows (by their monotonic time, as device rows) and events (by wall
    // time) due before the next device row, merged so that the lines stay in
    // wall-time order among themselves too (only jsonl prints them).
    const auto host_due = [&] { return host_i < run.host.mono_ns.size() && run.host.mono_ns[host_i] <= mono_ns; };
    const auto event_due = [&] { return event_i < events.size() && events[event_i]->time.wall_ns <= wall_ns; };
    while (host_due() || event_due()) {
      if (host_due() && (!event_due() || run.host.wall_ns[host_i] <= events[event_i]->time.wall_ns)) {
        formatter->host(buf, host_sample_at(run.host, host_i++), start);
      } else {
        formatter->event(buf, *events[event_i++], start);
      }
    }
  };
  for (const RowRef& r : rows_by_time(run, std::nullopt)) {
    const DeviceSeries& s = run.devices[r.device];
    until(r.mono_ns, r.row < s.wall_ns.size() ? s.wall_ns[r.row] : run.run.start_wall_ns + (r.mono_ns - start));
    formatter->device(buf, device_sample_at(s, r.row), s.info, start);
    if (buf.size() > (1 << 16)) {
      emit(buf);
      buf.clear();
    }
  }
  until(std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max());
  for (const ProcessRecord& p : run.processes) formatter->process(buf, p);
  emit(buf);
}

std::string seed_file_stem(const std::string& run_name, std::int64_t start_wall_ns) {
  const std::string safe = file_name_part(run_name);
  const auto t = static_cast<std::time_t>(start_wall_ns / 1'000'000'000);
  std::tm tm{};
  localtime_r(&t, &tm);
  return fmt::format("gpu_stats_{}_{:04}{:02}{:02}_{:02}{:02}{:02}", safe, tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void write_export(const RunData& run, OutputFormat format, std::optional<int> gpu, const TextSink& emit) {
  switch (format) {
    case OutputFormat::json: write_seed_single_json(run, gpu, emit); break;
    case OutputFormat::multi_json: write_seed_multi_json(run, emit); break;
    default: write_sample_rows(run, format, emit); break;
  }
}

}  // namespace gpuwatch
