#include "render/sample_format.h"

#include <fmt/format.h>

#include "base/json_writer.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

double elapsed_s(const Timestamp& t, std::int64_t start_mono_ns) {
  return static_cast<double>(t.mono_ns - start_mono_ns) / 1e9;
}

// What every jsonl line begins with: the schema it follows and its type.
void line_head(JsonWriter& w, std::string_view type) {
  w.begin_object();
  w.field("schema_version", kSampleLinesSchemaVersion);
  w.field("type", type);
}

// What every timed jsonl line begins with: line_head() and its time, three ways.
void timed_line_head(JsonWriter& w, std::string_view type, const Timestamp& t, std::int64_t start_mono_ns) {
  line_head(w, type);
  w.field("timestamp", iso_utc_ms(t.wall_ns));
  w.field("wall_ns", t.wall_ns);
  w.field("elapsed_s", elapsed_s(t, start_mono_ns));
}

// Like `nvidia-smi dmon`: one narrow row per device per tick. Headers are
// short to keep rows narrow; values are in the catalogue's display unit, and
// percentages and temperatures are whole numbers, as the driver reads them.
struct SampleColumn {
  std::string_view header;
  int width;
  DeviceMetric metric;
  int decimals;
};

constexpr SampleColumn kSampleColumns[] = {
    {"util", 5, DeviceMetric::GpuUtilPercent, 0},     {"mutil", 5, DeviceMetric::MemUtilPercent, 0},
    {"mem_GiB", 9, DeviceMetric::MemUsedBytes, 2},    {"total_GiB", 9, DeviceMetric::MemTotalBytes, 1},
    {"pwr_W", 7, DeviceMetric::PowerWatts, 1},        {"temp", 5, DeviceMetric::TempGpuCelsius, 0},
    {"mtemp", 5, DeviceMetric::TempMemCelsius, 0},    {"sm_MHz", 6, DeviceMetric::SmClockMhz, 0},
    {"mem_MHz", 7, DeviceMetric::MemClockMhz, 0},     {"fan", 4, DeviceMetric::FanPercent, 0},
    {"pst", 3, DeviceMetric::PerfState, 0},
};

class TableFormatter final : public SampleFormatter {
 public:
  void begin(std::string& out) override {
    out += fmt::format("{:<12} {:>3}", "# time", "gpu");
    for (const SampleColumn& c : kSampleColumns) out += fmt::format(" {:>{}}", c.header, c.width);
    out += fmt::format(" {:>6}\n", "events");
  }
  void write_device(std::string& out, const DeviceSample& s, bool, const DeviceInfo&, std::int64_t) override {
    out += fmt::format("{:<12} {:>3}", clock_local_ms(s.time.wall_ns), s.device_index);
    for (const SampleColumn& c : kSampleColumns) {
      const auto x = s.values.get(c.metric);
      out += fmt::format(" {:>{}}", x ? fixed(*x / info(c.metric).display.divisor, c.decimals) : std::string("-"), c.width);
    }
    const auto reasons = s.values.get(DeviceMetric::ClockEventReasons);
    out += fmt::format(" {:>6}\n", reasons ? fmt::format("{:#x}", static_cast<std::uint64_t>(*reasons)) : "-");
  }
  void host(std::string&, const HostSample&, std::int64_t) override {}
};

class JsonLinesFormatter final : public SampleFormatter {
 public:
  void begin(std::string&) override {}
  void write_device(std::string& out, const DeviceSample& s, bool carried, const DeviceInfo& info,
                    std::int64_t start) override {
    JsonWriter w(out);
    timed_line_head(w, "device", s.time, start);
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
    timed_line_head(w, "host", s.time, start);
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
    timed_line_head(w, "event", e.time, start);
    w.field("gpu", e.device_index);
    w.field("kind", e.kind);
    w.field("message", e.message);
    w.end_object();
    out.push_back('\n');
  }
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
    fmt::format_to(std::back_inserter(out), "{},{},{},{}", iso_utc_ms(s.time.wall_ns),
                   elapsed_s(s.time, start), s.device_index, csv_field(info.name));
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      out.push_back(',');
      if (auto x = s.values.get(static_cast<DeviceMetric>(m))) fmt::format_to(std::back_inserter(out), "{}", *x);
    }
    out += carried ? ",1\n" : ",\n";
  }
  void host(std::string&, const HostSample&, std::int64_t) override {}
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
