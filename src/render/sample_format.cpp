#include "render/sample_format.h"

#include <fmt/format.h>

#include "render/json_writer.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

double elapsed_s(const Timestamp& t, std::int64_t start_mono_ns) {
  return static_cast<double>(t.mono_ns - start_mono_ns) / 1e9;
}

// Like `nvidia-smi dmon`: one narrow row per device per tick.
class TableFormatter final : public SampleFormatter {
 public:
  void begin(std::string& out) override {
    out += fmt::format("{:<12} {:>3} {:>5} {:>5} {:>9} {:>9} {:>7} {:>5} {:>5} {:>6} {:>6} {:>4} {:>3} {:>6}\n",
                       "# time", "gpu", "util", "mutil", "mem_GiB", "total_GiB", "pwr_W", "temp", "mtemp",
                       "sm_MHz", "mem_MHz", "fan", "pst", "events");
  }
  void write_device(std::string& out, const DeviceSample& s, bool, const DeviceInfo&, std::int64_t) override {
    const DeviceValues& v = s.values;
    auto num = [&](DeviceMetric m, double divisor, int decimals) -> std::string {
      auto x = v.get(m);
      if (!x) return "-";
      return fmt::format("{:.{}f}", *x / divisor, decimals);
    };
    const auto reasons = v.get(DeviceMetric::ClockEventReasons);
    out += fmt::format("{:<12} {:>3} {:>5} {:>5} {:>9} {:>9} {:>7} {:>5} {:>5} {:>6} {:>6} {:>4} {:>3} {:>6}\n",
                       clock_local_ms(s.time.wall_ns), s.device_index, num(DeviceMetric::GpuUtilPercent, 1, 0),
                       num(DeviceMetric::MemUtilPercent, 1, 0), num(DeviceMetric::MemUsedBytes, kGiB, 2),
                       num(DeviceMetric::MemTotalBytes, kGiB, 1), num(DeviceMetric::PowerWatts, 1, 1),
                       num(DeviceMetric::TempGpuCelsius, 1, 0), num(DeviceMetric::TempMemCelsius, 1, 0),
                       num(DeviceMetric::SmClockMhz, 1, 0), num(DeviceMetric::MemClockMhz, 1, 0),
                       num(DeviceMetric::FanPercent, 1, 0), num(DeviceMetric::PerfState, 1, 0),
                       reasons ? fmt::format("{:#x}", static_cast<std::uint64_t>(*reasons)) : std::string("-"));
  }
  void host(std::string&, const HostSample&, std::int64_t) override {}
};

class JsonLinesFormatter final : public SampleFormatter {
 public:
  void begin(std::string&) override {}
  void write_device(std::string& out, const DeviceSample& s, bool carried, const DeviceInfo& info,
                    std::int64_t start) override {
    JsonWriter w(out);
    w.begin_object();
    w.field("type", "device");
    w.field("timestamp", iso_utc_ms(s.time.wall_ns));
    w.field("wall_ns", s.time.wall_ns);
    w.field("elapsed_s", elapsed_s(s.time, start));
    w.field("gpu_index", s.device_index);
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
    w.begin_object();
    w.field("type", "host");
    w.field("timestamp", iso_utc_ms(s.time.wall_ns));
    w.field("wall_ns", s.time.wall_ns);
    w.field("elapsed_s", elapsed_s(s.time, start));
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
    out += "timestamp,elapsed_s,gpu_index,gpu_name";
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

std::unique_ptr<SampleFormatter> make_sample_formatter(std::string_view format) {
  if (format == "table") return std::make_unique<TableFormatter>();
  if (format == "jsonl") return std::make_unique<JsonLinesFormatter>();
  if (format == "csv") return std::make_unique<CsvFormatter>();
  return nullptr;
}

}  // namespace gpuwatch
