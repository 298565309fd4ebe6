#include "render/seed_files.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <deque>
#include <limits>

#include <fmt/format.h>

#include "core/device_columns.h"
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

// Each exported device's first slow read, handed to `carry_back` (a
// SlowCarry's or a formatter's): the first tick precedes the first slow read,
// and rows written for the seed tools' scripts must all have a temperature.
template <typename CarryBack>
void carry_back_first_reads(RowCursor& rows, std::optional<int> gpu, const CarryBack& carry_back) {
  const std::vector<DeviceSeries>& devices = rows.base().devices;
  for (std::size_t p = 0; p < devices.size(); ++p) {
    if (gpu && devices[p].info.index != *gpu) continue;
    if (const auto read = rows.first_slow_read(p)) carry_back(*read);
  }
}

// Written out 64 KiB at a time: a write() per row (-o FILE writes straight
// to its file) cost more than making the row.
void emit_when_full(std::string& buf, const TextSink& emit) {
  if (buf.size() < (std::size_t{1} << 16)) return;
  emit(buf);
  buf.clear();
}

// A run in memory as rows: its devices' rows by time (a stable sort, as the
// columns of a stored run were always merged), host rows among them.
class MemoryRows final : public RowCursor {
 public:
  MemoryRows(const RunData& run, const RowSelection& selection) : run_(run), base_(run_base(run)) {
    for (std::size_t d = 0; selection.devices && d < run.devices.size(); ++d) {
      if (selection.device && run.devices[d].info.index != *selection.device) continue;
      for (std::size_t i = 0; i < run.devices[d].mono_ns.size(); ++i) rows_.push_back({run.devices[d].mono_ns[i], d, i});
    }
    std::stable_sort(rows_.begin(), rows_.end(), [](const RowRef& a, const RowRef& b) { return a.mono_ns < b.mono_ns; });
    host_rows_ = selection.host ? run.host.mono_ns.size() : 0;
  }
  [[nodiscard]] const RunData& base() const override { return base_; }
  bool next(RunRow& row) override {
    if (host_i_ < host_rows_ && (row_i_ == rows_.size() || run_.host.mono_ns[host_i_] <= rows_[row_i_].mono_ns)) {
      row.kind = RunRow::Kind::Host;
      row.host_sample = host_sample_at(run_.host, host_i_++);
      return true;
    }
    if (row_i_ == rows_.size()) return false;
    const RowRef& r = rows_[row_i_++];
    const DeviceSeries& s = run_.devices[r.device];
    row.kind = RunRow::Kind::Device;
    row.device = r.device;
    row.device_sample = sample_at(s, r.row);
    return true;
  }
  std::optional<DeviceSample> first_slow_read(std::size_t device) override {
    constexpr auto kAge = static_cast<std::size_t>(DeviceMetric::SlowReadAgeSeconds);
    const DeviceSeries& s = run_.devices.at(device);
    if (s.values.size() <= kAge) return std::nullopt;
    const std::vector<double>& age = s.values[kAge];
    const auto first = std::find_if(age.begin(), age.end(), [](double v) { return !std::isnan(v); });
    if (first == age.end()) return std::nullopt;
    return sample_at(s, static_cast<std::size_t>(first - age.begin()));
  }

 private:
  struct RowRef {
    std::int64_t mono_ns;
    std::size_t device;
    std::size_t row;
  };
  // A series whose wall clock was not loaded gets it from the monotonic one.
  [[nodiscard]] DeviceSample sample_at(const DeviceSeries& s, std::size_t i) const {
    if (i < s.wall_ns.size()) return device_sample_at(s, i);
    DeviceSeries one{s.info, {s.mono_ns[i]}, {run_.run.start_wall_ns + (s.mono_ns[i] - run_.run.start_mono_ns)}, {}, {}};
    for (const auto& column : s.values) one.values.push_back({i < column.size() ? column[i] : kNaN});
    return device_sample_at(one, 0);
  }
  const RunData& run_;
  RunData base_;
  std::vector<RowRef> rows_;
  std::size_t row_i_ = 0;
  std::size_t host_rows_ = 0;
  std::size_t host_i_ = 0;
};

// A tick of multi-json: the devices sampled at one monotonic time (they
// share it exactly), as written.
struct Tick {
  std::int64_t mono_ns = 0;
  std::vector<std::pair<DeviceSample, bool>> members;  // the row, its slow values carried
  std::vector<std::size_t> devices;                    // each member's device position
};

void write_tick(const RunData& base, const Tick& tick, bool first, std::string& buf) {
  buf += first ? "\n  " : ",\n  ";
  JsonWriter w(buf);
  w.begin_object();
  w.field("timestamp", iso_local(tick.members.front().first.time.wall_ns));
  w.field("elapsed_seconds", elapsed(base, tick.mono_ns));
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
  for (std::size_t k = 0; k < tick.members.size(); ++k) {
    const DeviceValues& v = tick.members[k].first.values;
    w.begin_object();
    write_gpu_fields(w, base.devices[tick.devices[k]].info, v, tick.members[k].second);
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
  w.field("gpu_count", static_cast<std::uint64_t>(tick.members.size()));
  w.end_object();
  w.end_object();
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

OpenRows rows_in_memory(const RunData& run) {
  return [&run](const RowSelection& selection) -> std::unique_ptr<RowCursor> {
    return std::make_unique<MemoryRows>(run, selection);
  };
}

void write_seed_single_json(const OpenRows& open, std::optional<int> gpu, const TextSink& emit) {
  const auto rows = open(RowSelection{gpu, true, false});
  const RunData& base = rows->base();
  emit("[");
  bool first = true;
  std::string buf;
  SlowCarry carry;
  carry_back_first_reads(*rows, gpu, [&carry](const DeviceSample& read) { carry.carry_back(read); });
  for (RunRow row; rows->next(row);) {
    if (row.kind != RunRow::Kind::Device) continue;
    const bool carried = carry.fill(row.device_sample);
    buf += first ? "\n  " : ",\n  ";
    first = false;
    JsonWriter w(buf);
    w.begin_object();
    w.field("timestamp", iso_local(row.device_sample.time.wall_ns));
    write_gpu_fields(w, base.devices[row.device].info, row.device_sample.values, carried);
    w.field("elapsed_seconds", elapsed(base, row.device_sample.time.mono_ns));
    w.end_object();
    emit_when_full(buf, emit);
  }
  buf += first ? "]\n" : "\n]\n";
  emit(buf);
}

void write_seed_multi_json(const OpenRows& open, const TextSink& emit) {
  const auto rows = open(RowSelection{std::nullopt, true, false});
  emit("[");
  bool first = true;
  std::string buf;
  SlowCarry carry;
  carry_back_first_reads(*rows, std::nullopt, [&carry](const DeviceSample& read) { carry.carry_back(read); });
  Tick tick;
  const auto flush = [&] {
    if (tick.members.empty()) return;
    write_tick(rows->base(), tick, first, buf);
    first = false;
    emit_when_full(buf, emit);
    tick.members.clear();
    tick.devices.clear();
  };
  for (RunRow row; rows->next(row);) {
    if (row.kind != RunRow::Kind::Device) continue;
    if (row.device_sample.time.mono_ns != tick.mono_ns) flush();
    tick.mono_ns = row.device_sample.time.mono_ns;
    const bool carried = carry.fill(row.device_sample);
    tick.members.emplace_back(std::move(row.device_sample), carried);
    tick.devices.push_back(row.device);
  }
  flush();
  buf += first ? "]\n" : "\n]\n";
  emit(buf);
}

namespace {

// jsonl's lines other than device rows: host rows (by their monotonic time,
// as device rows) and events (by wall time), written before the next device
// row, merged so that the lines stay in wall-time order among themselves too.
class BetweenRows {
 public:
  BetweenRows(SampleFormatter& formatter, const RunData& base) : formatter_(formatter), start_(base.run.start_mono_ns) {
    // Events interleave by their wall time (only jsonl prints them): an event
    // stamped as the run began can read a few ms later on the wall clock than
    // the first sample, whose wall time the sampler derives from its tick.
    events_ = base.events;
    std::stable_sort(events_.begin(), events_.end(),
                     [](const Event& a, const Event& b) { return a.time.wall_ns < b.time.wall_ns; });
  }
  void host(HostSample&& sample) { host_.push_back(std::move(sample)); }
  // An event noted while reading (an unreadable chunk): among those not yet written, by wall time.
  void event(Event&& e) {
    const auto after = std::upper_bound(events_.begin() + static_cast<std::ptrdiff_t>(event_i_), events_.end(), e,
                                        [](const Event& a, const Event& b) { return a.time.wall_ns < b.time.wall_ns; });
    events_.insert(after, std::move(e));
  }
  // Writes what is due before a device row at these times.
  void until(std::string& buf, std::int64_t mono_ns, std::int64_t wall_ns) {
    const auto host_due = [&] { return !host_.empty() && host_.front().time.mono_ns <= mono_ns; };
    const auto event_due = [&] { return event_i_ < events_.size() && events_[event_i_].time.wall_ns <= wall_ns; };
    while (host_due() || event_due()) {
      if (host_due() && (!event_due() || host_.front().time.wall_ns <= events_[event_i_].time.wall_ns)) {
        formatter_.host(buf, host_.front(), start_);
        host_.pop_front();
      } else {
        formatter_.event(buf, events_[event_i_++], start_);
      }
    }
  }

 private:
  SampleFormatter& formatter_;
  std::int64_t start_;
  std::deque<HostSample> host_;  // read, not yet written: the few before the next device row
  std::vector<Event> events_;
  std::size_t event_i_ = 0;
};

}  // namespace

void write_sample_rows(const OpenRows& open, OutputFormat format, const TextSink& emit) {
  auto formatter = make_sample_formatter(format);
  if (!formatter) return;
  // Only jsonl prints host rows: csv does not read them.
  const auto rows = open(RowSelection{std::nullopt, true, format == OutputFormat::jsonl});
  const RunData& base = rows->base();
  std::string buf;
  carry_back_first_reads(*rows, std::nullopt, [&formatter](const DeviceSample& read) { formatter->carry_back(read); });
  formatter->begin(buf);
  BetweenRows between(*formatter, base);
  for (RunRow row; rows->next(row);) {
    if (row.kind == RunRow::Kind::Host) between.host(std::move(row.host_sample));
    if (row.kind == RunRow::Kind::Event) between.event(std::move(row.event));
    if (row.kind != RunRow::Kind::Device) continue;
    between.until(buf, row.device_sample.time.mono_ns, row.device_sample.time.wall_ns);
    formatter->device(buf, row.device_sample, base.devices[row.device].info, base.run.start_mono_ns);
    emit_when_full(buf, emit);
  }
  between.until(buf, std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max());
  for (const ProcessRecord& p : base.processes) formatter->process(buf, p);
  emit(buf);
}

void write_seed_single_json(const RunData& run, std::optional<int> gpu, const TextSink& emit) {
  write_seed_single_json(rows_in_memory(run), gpu, emit);
}
void write_seed_multi_json(const RunData& run, const TextSink& emit) { write_seed_multi_json(rows_in_memory(run), emit); }
void write_sample_rows(const RunData& run, OutputFormat format, const TextSink& emit) {
  write_sample_rows(rows_in_memory(run), format, emit);
}
void write_export(const RunData& run, OutputFormat format, std::optional<int> gpu, const TextSink& emit) {
  write_export(rows_in_memory(run), format, gpu, emit);
}

std::string seed_file_stem(const std::string& run_name, std::int64_t start_wall_ns) {
  const std::string safe = file_name_part(run_name);
  const auto t = static_cast<std::time_t>(start_wall_ns / 1'000'000'000);
  std::tm tm{};
  localtime_r(&t, &tm);
  return fmt::format("gpu_stats_{}_{:04}{:02}{:02}_{:02}{:02}{:02}", safe, tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void write_export(const OpenRows& rows, OutputFormat format, std::optional<int> gpu, const TextSink& emit) {
  switch (format) {
    case OutputFormat::json: write_seed_single_json(rows, gpu, emit); break;
    case OutputFormat::multi_json: write_seed_multi_json(rows, emit); break;
    default: write_sample_rows(rows, format, emit); break;
  }
}

}  // namespace gpuwatch
