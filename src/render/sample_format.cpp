#include "render/sample_format.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "base/json_writer.h"
#include "core/text_width.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

double elapsed_s(const Timestamp& t, std::int64_t start_mono_ns) {
  return static_cast<double>(t.mono_ns - start_mono_ns) / 1e9;
}

// iso_utc_ms() of rows that come in time order: the text up to the second
// is made once per second (the ~80 rows of a second of 8 GPUs at 10 Hz
// share it), the milliseconds per row. gmtime and fmt per row were a
// seventh of `export --format csv`.
class UtcMsText {
 public:
  std::string_view operator()(std::int64_t wall_ns) {
    constexpr std::int64_t kNsPerS = 1'000'000'000;
    if (wall_ns < 0) return text_ = iso_utc_ms(wall_ns);  // before 1970: not worth a cache
    const std::int64_t second = wall_ns / kNsPerS;
    if (second != second_ || text_.empty()) {
      second_ = second;
      text_ = iso_utc_ms(second * kNsPerS);  // "...T10:00:01.000Z"
    }
    const auto ms = static_cast<int>(wall_ns % kNsPerS / 1'000'000);
    constexpr std::size_t kMsAt = 4;  // from the end: "123Z"
    char* digits = text_.data() + text_.size() - kMsAt;
    digits[0] = static_cast<char>('0' + ms / 100);
    digits[1] = static_cast<char>('0' + ms / 10 % 10);
    digits[2] = static_cast<char>('0' + ms % 10);
    return text_;
  }

 private:
  std::int64_t second_ = -1;
  std::string text_;
};

// What every jsonl line begins with: the schema it follows and its type.
void line_head(JsonWriter& w, std::string_view type) {
  w.begin_object();
  w.field("schema_version", kSampleLinesSchemaVersion);
  w.field("type", type);
}

// What every timed jsonl line begins with: line_head() and its time, three ways.
void timed_line_head(JsonWriter& w, std::string_view type, const Timestamp& t, std::int64_t start_mono_ns,
                     UtcMsText& utc) {
  line_head(w, type);
  w.field("timestamp", utc(t.wall_ns));
  w.field("wall_ns", t.wall_ns);
  w.field("elapsed_s", elapsed_s(t, start_mono_ns));
}

// Like `nvidia-smi dmon`: one narrow row per device per tick, under two
// header lines, each metric's tag and its display unit (core/metrics.h).
// Values are in the catalogue's display format; percentages and
// temperatures are whole numbers, as the driver reads them.
struct SampleColumn {
  DeviceMetric metric;
  int value_columns;  // the widest value it shows: "141.00" GiB, "1980" MHz
  bool whole = false;
};

constexpr SampleColumn kSampleColumns[] = {
    {DeviceMetric::GpuUtilPercent, 3, true}, {DeviceMetric::MemUtilPercent, 3, true},
    {DeviceMetric::MemUsedBytes, 6},         {DeviceMetric::MemTotalBytes, 5},
    {DeviceMetric::PowerWatts, 6},           {DeviceMetric::TempGpuCelsius, 3, true},
    {DeviceMetric::TempMemCelsius, 3, true}, {DeviceMetric::SmClockMhz, 4},
    {DeviceMetric::MemClockMhz, 5},          {DeviceMetric::FanPercent, 3},
    {DeviceMetric::PerfState, 2},
};
constexpr std::string_view kTimeTitle = "# time";
constexpr std::string_view kGpuTitle = "gpu";
constexpr std::size_t kTimeColumns = 12;
// The clock-event (throttle) mask, in hex: "0x44".
constexpr std::size_t kMaskColumns = 6;

DisplayFormat format_of(const SampleColumn& c) {
  const DisplayFormat& f = info(c.metric).display;
  return c.whole ? rounded(f, 0) : f;
}

std::size_t columns_of(const SampleColumn& c) {
  const MetricInfo& m = info(c.metric);
  return std::max({static_cast<std::size_t>(c.value_columns), display_width(m.tag), display_width(m.display.unit)});
}

// `text` right-aligned in `columns` terminal columns, after a space.
void add_cell(std::string& out, std::string_view text, std::size_t columns) {
  const std::size_t w = display_width(text);
  out += std::string(1 + (columns > w ? columns - w : 0), ' ');
  out += text;
}

std::string left_aligned(std::string_view text, std::size_t columns) {
  std::string out(text);
  return out + std::string(columns > display_width(text) ? columns - display_width(text) : 0, ' ');
}

const MetricInfo& mask_info() { return info(DeviceMetric::ClockEventReasons); }

class TableFormatter final : public SampleFormatter {
 public:
  void begin(std::string& out) override {
    out += left_aligned(kTimeTitle, kTimeColumns);
    add_cell(out, kGpuTitle, kGpuTitle.size());
    for (const SampleColumn& c : kSampleColumns) add_cell(out, info(c.metric).tag, columns_of(c));
    add_cell(out, mask_info().tag, std::max(kMaskColumns, mask_info().tag.size()));
    out += '\n';
    std::string units = left_aligned("#", kTimeColumns);
    add_cell(units, "", kGpuTitle.size());
    for (const SampleColumn& c : kSampleColumns) add_cell(units, info(c.metric).display.unit, columns_of(c));
    while (!units.empty() && units.back() == ' ') units.pop_back();
    out += units + '\n';
  }
  void write_device(std::string& out, const DeviceSample& s, bool, const DeviceInfo&, std::int64_t) override {
    out += left_aligned(clock_local_ms(s.time.wall_ns), kTimeColumns);
    add_cell(out, std::to_string(s.device_index), kGpuTitle.size());
    for (const SampleColumn& c : kSampleColumns) {
      const auto x = s.values.get(c.metric);
      add_cell(out, x ? display_value(format_of(c), *x) : std::string("-"), columns_of(c));
    }
    const auto reasons = s.values.get(DeviceMetric::ClockEventReasons);
    add_cell(out, reasons ? fmt::format("{:#x}", static_cast<std::uint64_t>(*reasons)) : "-",
             std::max(kMaskColumns, mask_info().tag.size()));
    out += '\n';
  }
  void host(std::string&, const HostSample&, std::int64_t) override {}
};

class JsonLinesFormatter final : public SampleFormatter {
 public:
  void begin(std::string&) override {}
  void write_device(std::string& out, const DeviceSample& s, bool carried, const DeviceInfo& info,
                    std::int64_t start) override {
    JsonWriter w(out);
    timed_line_head(w, "device", s.time, start, utc_);
    w.field("gpu", s.device_index);
    w.field("gpu_name", info.name);
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      if (auto x = s.values.get(static_cast<DeviceMetric>(m))) w.field(kDeviceMetrics[m].name, *x);
    }
    if (carried) w.field(kSlowValuesCarriedField, true);
    w.end_object();
    out.push_back('\n');
  }
  void host(std::string& out, const HostSample& s, std::int64_t start) override {
    JsonWriter w(out);
    timed_line_head(w, "host", s.time, start, utc_);
    for (std::size_t m = 0; m < kHostMetricCount; ++m) {
      if (auto x = s.values.get(static_cast<HostMetric>(m))) w.field(kHostMetrics[m].name, *x);
    }
    if (!s.core_percent.empty()) {
      w.key("core_percent").begin_array();
      for (double c : s.core_percent) w.value(c);
      w.end_array();
    }
    w.end_object();
    out.push_back('\n');
  }
  void process(std::string& out, const ProcessRecord& p) override {
    JsonWriter w(out);
    line_head(w, "process");
    w.field("gpu", p.device_index);
    w.field("pid", static_cast<std::uint64_t>(p.pid));
    w.field("name", p.name);
    w.field("first_seen_wall_ns", p.first_seen_wall_ns);
    w.field("last_seen_wall_ns", p.last_seen_wall_ns);
    w.field("max_used_memory_bytes", p.max_used_memory_bytes);
    w.field("mean_gpu_percent", p.mean_gpu_percent());
    w.field("max_gpu_percent", p.max_gpu_percent);
    w.end_object();
    out.push_back('\n');
  }
  void event(std::string& out, const Event& e, std::int64_t start) override {
    JsonWriter w(out);
    timed_line_head(w, "event", e.time, start, utc_);
    w.field("gpu", e.device_index);
    w.field("kind", e.kind);
    w.field("message", e.message);
    w.end_object();
    out.push_back('\n');
  }

 private:
  UtcMsText utc_;
};

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

// `v` as fmt's "{}" writes it (the shortest form that reads back the same).
// A whole number below 10^15 (most stored values: bytes, MHz, counts) is
// written as the integer it is, which is the same text at a fraction of the
// cost: formatting doubles was half of `export --format csv`'s time (issue 25).
void append_shortest(std::string& out, double v) {
  constexpr double kWholeLimit = 1e15;  // fmt's shortest form has no exponent below 10^16
  if (v > -kWholeLimit && v < kWholeLimit && v == std::trunc(v) && !(v == 0 && std::signbit(v))) {
    std::array<char, 24> text{};
    const auto end = std::to_chars(text.data(), text.data() + text.size(), static_cast<std::int64_t>(v)).ptr;
    out.append(text.data(), end);
    return;
  }
  fmt::format_to(std::back_inserter(out), "{}", v);
}

// Device rows only: one fixed set of columns, every metric, empty when absent.
class CsvFormatter final : public SampleFormatter {
 public:
  void begin(std::string& out) override {
    out += "timestamp,elapsed_s,gpu,gpu_name";
    for (const MetricInfo& m : kDeviceMetrics) fmt::format_to(std::back_inserter(out), ",{}", m.name);
    fmt::format_to(std::back_inserter(out), ",{}\n", kSlowValuesCarriedField);
  }
  void write_device(std::string& out, const DeviceSample& s, bool carried, const DeviceInfo& info,
                    std::int64_t start) override {
    // What "{},{},{},{}" wrote, without parsing a format per row.
    out += utc_(s.time.wall_ns);
    out.push_back(',');
    append_shortest(out, elapsed_s(s.time, start));
    out.push_back(',');
    append_shortest(out, s.device_index);
    out.push_back(',');
    if (info.name != name_) {
      name_ = info.name;
      name_cell_ = csv_field(info.name);
    }
    out += name_cell_;
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      out.push_back(',');
      if (auto x = s.values.get(static_cast<DeviceMetric>(m))) append_shortest(out, *x);
    }
    out += carried ? ",1\n" : ",\n";
  }
  void host(std::string&, const HostSample&, std::int64_t) override {}

 private:
  UtcMsText utc_;
  std::string name_;       // the last device's name
  std::string name_cell_;  // and its CSV cell
};

}  // namespace

void SampleFormatter::device(std::string& out, const DeviceSample& sample, const DeviceInfo& info,
                             std::int64_t start_mono_ns) {
  DeviceSample row = sample;
  const bool carried = carry_.fill(row);
  write_device(out, row, carried, info, start_mono_ns);
}

std::unique_ptr<SampleFormatter> make_sample_formatter(OutputFormat format) {
  switch (format) {
    case OutputFormat::text: return std::make_unique<TableFormatter>();
    case OutputFormat::jsonl: return std::make_unique<JsonLinesFormatter>();
    case OutputFormat::csv: return std::make_unique<CsvFormatter>();
    default: return nullptr;
  }
}

}  // namespace gpuwatch
