#include "import/sample_rows.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/iso_time.h"
#include "import/json_elements.h"
#include "import/json_values.h"
#include "import/limits.h"
#include "import/names.h"
#include "import/plausible.h"
#include "core/slow_carry.h"

namespace gpuwatch {

namespace {

namespace dom = simdjson::dom;

constexpr std::string_view kCutOff = "cut off by the end of the file";
constexpr std::string_view kNoTimestamp = "without a readable timestamp";
constexpr std::string_view kBadIndex = "with a gpu that is not an index from 0 to 1023";

// Calls on_line(line, terminated) for each line of `in` (without its
// newline and a '\r' before it), as it is read, with notes.where() naming it.
// A line longer than kMaxRecordBytes is refused (limits.h).
template <typename OnLine>
void for_each_line(TextSource& in, ImportNotes& notes, OnLine on_line) {
  std::uint64_t number = 0;
  while (in.ensure(1)) {
    notes.at("line", ++number);
    std::size_t nl = in.window().find('\n');
    while (nl == std::string_view::npos && in.window().size() <= kMaxRecordBytes && in.more()) {
      nl = in.window().find('\n');
    }
    const std::string_view w = in.window();
    if (std::min(nl, w.size()) > kMaxRecordBytes) record_too_long(notes.where(), json_path_at(w, kMaxRecordBytes));
    const bool terminated = nl != std::string_view::npos;
    std::string_view line = w.substr(0, terminated ? nl : w.size());
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    on_line(line, terminated);
    in.consume(terminated ? nl + 1 : w.size());
  }
}

// The GPU index of a record: "gpu" since schema_version 2, "gpu_index" in
// older exports (docs/report-json.md, "Changed in schema_version 2").
std::optional<dom::element> gpu_field(dom::object record) {
  if (auto gpu = field(record, "gpu")) return gpu;
  return field(record, "gpu_index");
}

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

// The wall time of a JSON lines record: exact wall_ns, else its timestamp.
std::optional<std::int64_t> record_wall_ns(dom::object record) {
  std::int64_t wall = 0;
  if (record.at_key("wall_ns").get(wall) == simdjson::SUCCESS && wall >= 0 && wall <= kMaxImportWallNs) return wall;
  return parse_iso_time_ns(string_field(record, "timestamp"));
}

// Reads every field of `record` named in `table` into `values`; fields
// that are neither metrics nor `known` are noted as not kept.
// `known` names no metric. An export writes the metrics in table order:
// the one after the last found is tried first, and the known fields before
// the whole table (a search of the table for each field was a tenth of
// importing a jsonl export, issue 25).
template <typename Metric, typename Table, typename Values>
void read_metrics(dom::object record, const Table& table, std::initializer_list<std::string_view> known,
                  Values& values, ImportNotes& notes) {
  std::size_t next = 0;
  for (auto [key, value] : record) {
    int m = -1;
    if (next < table.size() && table[next].name == key) {
      m = static_cast<int>(next);
    } else if (std::find(known.begin(), known.end(), key) != known.end()) {
      continue;
    } else {
      m = metric_index_by_name(table, key);
    }
    if (m < 0) {
      notes.not_kept(key);
      continue;
    }
    next = static_cast<std::size_t>(m) + 1;
    if (const auto v = number_of(value, notes)) values.set(static_cast<Metric>(m), *v);
  }
}

// A process line of a jsonl export (no time point of its own); false (with
// the reason) when it is unusable.
bool read_process_record(dom::object record, RunBuilder& builder, ImportNotes& notes, std::string_view& why) {
  const auto index = gpu_field(record);
  const auto gpu = index ? gpu_index_of(*index, notes) : std::nullopt;
  const auto pid = number_field(record, "pid", notes);
  const auto first = number_field(record, "first_seen_wall_ns", notes);
  const auto last = number_field(record, "last_seen_wall_ns", notes);
  if (!gpu || !pid || !(*pid >= 0 && *pid <= 4294967295.0) || !first || !last) {
    why = "a process without its GPU, pid or times";
    return false;
  }
  ProcessRecord p;
  p.device_index = *gpu;
  p.pid = static_cast<std::uint32_t>(*pid);
  p.name = std::string(checked_name(string_field(record, "name"), "name", notes));
  p.first_seen_wall_ns = static_cast<std::int64_t>(std::clamp(*first, -9.0e18, 9.0e18));
  p.last_seen_wall_ns = static_cast<std::int64_t>(std::clamp(*last, -9.0e18, 9.0e18));
  if (const auto mem = number_field(record, "max_used_memory_bytes", notes); mem && *mem >= 0 && *mem < 1.8e19) {
    p.max_used_memory_bytes = static_cast<std::uint64_t>(*mem);
  }
  const auto percent = [&](std::string_view key) -> std::optional<double> {
    const auto v = number_field(record, key, notes);
    return v && *v >= 0 && *v <= 100 ? v : std::nullopt;
  };
  p.max_gpu_percent = percent("max_gpu_percent");
  if (const auto mean = percent("mean_gpu_percent")) {
    p.gpu_percent_sum = *mean;  // one value: the mean as it was exported
    p.gpu_percent_reads = 1;
  }
  builder.add_process(std::move(p));
  return true;
}

// An event line of a jsonl export (annotations, advisories, the advisor
// config the run was recorded with); false (with the reason) without a kind.
bool read_event_record(dom::object record, std::size_t time, RunBuilder& builder, ImportNotes& notes,
                       std::string_view& why) {
  const std::string_view kind = checked_name(string_field(record, "kind"), "kind", notes);
  if (kind.empty()) {
    why = "an event without its kind";
    return false;
  }
  const auto index = gpu_field(record);
  const auto gpu = index ? gpu_index_of(*index, notes) : std::nullopt;
  builder.add_event(time, gpu, kind, string_field(record, "message"));
  return true;
}

// One JSON lines record; false (with the reason) when it is unusable.
bool read_json_record(dom::object record, RunBuilder& builder, ImportNotes& notes, std::string_view& why) {
  if (string_field(record, "type") == "process") return read_process_record(record, builder, notes, why);
  const auto wall_ns = record_wall_ns(record);
  if (!wall_ns) {
    why = kNoTimestamp;
    return false;
  }
  const auto elapsed_s = number_field(record, "elapsed_s", notes);
  const std::string_view type = string_field(record, "type");
  if (type == "event") return read_event_record(record, builder.add_time(*wall_ns, elapsed_s), builder, notes, why);
  if (type == "host") {
    HostValues values;
    read_metrics<HostMetric>(record, kHostMetrics,
                             {"schema_version", "type", "timestamp", "wall_ns", "elapsed_s", "core_percent"}, values,
                             notes);
    std::vector<double> cores;
    dom::array list;
    if (record.at_key("core_percent").get(list) == simdjson::SUCCESS) {
      for (dom::element core : list) cores.push_back(number_of(core, notes).value_or(kNaN));
    }
    builder.add_host_sample(builder.add_time(*wall_ns, elapsed_s), values, cores);
    return true;
  }
  const auto index_field = gpu_field(record);
  if (type != "device" && !(type.empty() && index_field)) {
    why = "of neither type device nor host";
    return false;
  }
  const auto index = index_field ? gpu_index_of(*index_field, notes) : std::nullopt;
  if (!index) {
    why = kBadIndex;
    return false;
  }
  DeviceValues values;
  read_metrics<DeviceMetric>(
      record, kDeviceMetrics,
      {"schema_version", "type", "timestamp", "wall_ns", "elapsed_s", "gpu", "gpu_index", "gpu_name", "gpu_type",
       kSlowValuesCarriedField},
      values, notes);
  if (true_field(record, kSlowValuesCarriedField)) drop_carried_slow_values(values);
  builder.add_device_sample(builder.add_time(*wall_ns, elapsed_s), *index, values);
  const std::string_view name = checked_name(string_field(record, "gpu_name"), "gpu_name", notes);
  const std::string_view gpu_type = checked_name(string_field(record, "gpu_type"), "gpu_type", notes);
  builder.describe_device(*index, name, vendor_from(gpu_type, name));
  return true;
}

// Fields of one CSV record starting at text[pos] (RFC 4180 quoting, as the
// exporter writes names with commas or quotes). Advances `pos` past it.
struct CsvRecord {
  std::vector<std::string> fields;
  bool terminated = false;  // ended with a newline
  bool well_formed = true;  // no stray quote
};
CsvRecord next_csv_record(std::string_view text, std::size_t& pos) {
  CsvRecord rec;
  std::string current;
  bool quoted = false;
  bool was_quoted = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (quoted) {
      if (c != '"') {
        current.push_back(c);
      } else if (pos + 1 < text.size() && text[pos + 1] == '"') {
        current.push_back('"');
        ++pos;
      } else {
        quoted = false;
      }
    } else if (c == ',') {
      rec.fields.push_back(std::move(current));
      current.clear();
      was_quoted = false;
    } else if (c == '\n') {
      ++pos;
      rec.terminated = true;
      break;
    } else if (c == '"' && current.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c != '\r') {
      if (was_quoted) rec.well_formed = false;
      current.push_back(c);
    }
  }
  if (quoted) rec.well_formed = false;
  rec.fields.push_back(std::move(current));
  return rec;
}

// The next record of `in`, consumed, which starts at line `line` (advanced
// past it). One cut by the window's end is read again from a window at least
// twice as large, up to kMaxRecordBytes: a longer one is refused, naming the
// column of `header` where the limit fell.
CsvRecord read_csv_record(TextSource& in, std::uint64_t& line, const std::vector<std::string>& header) {
  while (true) {
    std::size_t pos = 0;
    CsvRecord rec = next_csv_record(in.window(), pos);
    const bool too_long = rec.terminated ? pos > kMaxRecordBytes : in.window().size() > kMaxRecordBytes;
    if (too_long) {
      std::size_t cut = 0;
      const std::size_t column = next_csv_record(in.window().substr(0, kMaxRecordBytes), cut).fields.size() - 1;
      record_too_long(fmt::format("line {}", line),
                      column < header.size() ? header[column] : fmt::format("column {}", column + 1));
    }
    if (rec.terminated || !in.more()) {
      const std::string_view text = in.window().substr(0, pos);
      line += static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
      in.consume(pos);
      return rec;
    }
  }
}

std::optional<double> csv_number(const std::string& s, ImportNotes& notes) {
  if (s.empty()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) {
    ++notes.unreadable_values;
    return std::nullopt;
  }
  if (!std::isfinite(v)) {
    ++notes.clean.non_finite;
    return std::nullopt;
  }
  return v;
}

// The exporter's timestamps are cut to the millisecond while elapsed_s keeps
// nanoseconds; every row (a time point of its own) bounds the run's start
// from below (start + elapsed >= its timestamp), so the tightest bound gives
// wall times to well under a millisecond. Rows whose bound is more than a day
// from the median one have a damaged timestamp or elapsed_s: they are dropped
// (wall times derived from elapsed_s would hide them from the time line's own
// check). Nothing changes when some row has no usable elapsed_s.
void settle_csv_times(TimeLine& times, ImportNotes& notes) {
  bool any = false;
  bool all_elapsed = true;
  times.for_each_alive([&](std::size_t, const TimeLine::Point& p) {
    any = true;
    all_elapsed = all_elapsed && p.has_elapsed();
  });
  if (!any || !all_elapsed) return;  // timestamps it is
  const auto bound = [](const TimeLine::Point& p) { return p.wall_ns - p.elapsed_ns(); };
  const std::int64_t median = *streaming_median([&](const auto& f) {
    times.for_each_alive([&](std::size_t, const TimeLine::Point& p) { f(bound(p)); });
  });
  const auto kept = [&](const TimeLine::Point& p) { return std::llabs(bound(p) - median) <= kMaxClockDisagreementNs; };
  std::optional<std::int64_t> start;
  times.for_each_alive([&](std::size_t, const TimeLine::Point& p) {
    if (kept(p) && (!start || bound(p) > *start)) start = bound(p);
  });
  times.drop_unless([&](std::size_t, const TimeLine::Point& p) { return kept(p); }, kClockDisagreement, notes);
  if (start && *start >= 0) times.set_walls_from_elapsed(*start);
}

}  // namespace

void import_jsonl(TextSource& in, RunBuilder& builder, ImportNotes& notes) {
  ElementParser parser;
  for_each_line(in, notes, [&](std::string_view line, bool terminated) {
    if (blank(line)) return;
    const auto parsed = parser.parse(line, notes);
    if (!parsed) return notes.drop(terminated ? "not valid JSON" : kCutOff);
    dom::object record;
    if (parsed->get(record) != simdjson::SUCCESS) return notes.drop("not JSON objects");
    std::string_view why;
    if (read_json_record(record, builder, notes, why)) {
      notes.read();
    } else {
      notes.drop(why);
    }
  });
}

void import_csv(TextSource& in, RunBuilder& builder, ImportNotes& notes) {
  in.skip_bom_and_space();
  std::uint64_t line = 1;
  const CsvRecord header = read_csv_record(in, line, {});
  std::optional<std::size_t> timestamp, elapsed, index, name, carried;
  std::vector<std::pair<std::size_t, DeviceMetric>> metrics;
  for (std::size_t c = 0; c < header.fields.size(); ++c) {
    const std::string& h = header.fields[c];
    if (h == "timestamp") {
      timestamp = c;
    } else if (h == "elapsed_s") {
      elapsed = c;
    } else if (h == "gpu" || h == "gpu_index") {  // gpu_index before schema_version 2
      index = c;
    } else if (h == "gpu_name") {
      name = c;
    } else if (h == kSlowValuesCarriedField) {
      carried = c;
    } else if (const int m = metric_index_by_name(kDeviceMetrics, h); m >= 0) {
      metrics.emplace_back(c, static_cast<DeviceMetric>(m));
    } else {
      notes.not_kept(fmt::format("column {}", h));
    }
  }

  if (!timestamp || !index) {
    notes.warn("the CSV header names no timestamp or no gpu column");
    return;
  }

  while (in.ensure(1)) {
    notes.at("line", line);
    const CsvRecord rec = read_csv_record(in, line, header.fields);
    const auto& f = rec.fields;
    if (f.size() == 1 && blank(f[0])) continue;
    if (!rec.terminated) {
      notes.drop(kCutOff);
      continue;
    }
    if (!rec.well_formed || f.size() != header.fields.size()) {
      notes.drop("not rows that match the header");
      continue;
    }
    const auto wall_ns = parse_iso_time_ns(f[*timestamp]);
    if (!wall_ns) {
      notes.drop(kNoTimestamp);
      continue;
    }
    int gpu = -1;
    const std::string& g = f[*index];
    const auto [end, ec] = std::from_chars(g.data(), g.data() + g.size(), gpu);
    if (ec != std::errc() || end != g.data() + g.size() || gpu < 0 || gpu > kMaxGpuIndex) {
      notes.drop(kBadIndex);
      continue;
    }
    const auto elapsed_s = elapsed ? csv_number(f[*elapsed], notes) : std::nullopt;
    DeviceValues values;
    for (const auto& [column, metric] : metrics) {
      if (const auto v = csv_number(f[column], notes)) values.set(metric, *v);
    }
    if (carried && f[*carried] == "1") drop_carried_slow_values(values);
    const std::size_t time = builder.add_time(*wall_ns, elapsed_s);
    builder.add_device_sample(time, gpu, values);
    if (name) {
      const std::string gpu_name = valid_utf8(checked_name(f[*name], "gpu_name", notes), notes.clean.invalid_utf8);
      builder.describe_device(gpu, gpu_name, vendor_from("", gpu_name));
    }
    notes.read();
  }
  settle_csv_times(builder.times(), notes);
}

}  // namespace gpuwatch
