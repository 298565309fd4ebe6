// Export a run in every format, import it back, and compare: the row formats
// keep every value exactly, the seed formats what they carry at their
// precision (0.1 MiB, W, °C; microsecond timestamps; millisecond elapsed).
#include <cmath>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "import/import.h"
#include "render/seed_files.h"
#include "render/units.h"
#include "zone_guard.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kStartMono = 5'000'000'000;
constexpr std::int64_t kStartWall = 1'700'000'000'123'456'789;
constexpr std::size_t kRows = 6;

// |a - b| in nanoseconds, exactly (doubles cannot hold wall times to the ns).
std::int64_t distance(std::int64_t a, std::int64_t b) { return a > b ? a - b : b - a; }

double& cell(DeviceSeries& s, DeviceMetric m, std::size_t i) { return s.values[static_cast<std::size_t>(m)][i]; }
double at(const DeviceSeries& s, DeviceMetric m, std::size_t i) { return s.values[static_cast<std::size_t>(m)][i]; }

// Two H100s sampled together every 0.5 s (plus a few hundred µs of jitter),
// slow metrics on every other tick, and host rows.
RunData recorded_run() {
  RunData run;
  run.run.name = "round-trip";
  run.run.start_mono_ns = kStartMono;
  run.run.start_wall_ns = kStartWall;
  for (int d = 0; d < 2; ++d) {
    DeviceSeries s;
    s.info.index = d;
    s.info.name = "NVIDIA H100 80GB HBM3";
    s.info.vendor = "NVIDIA";
    s.values.assign(kDeviceMetricCount, std::vector<double>(kRows, kNaN));
    for (std::size_t i = 0; i < kRows; ++i) {
      const auto offset = static_cast<std::int64_t>(i) * 500'000'000 + static_cast<std::int64_t>(i * 317'123);
      s.mono_ns.push_back(kStartMono + 2'000'000 + offset);
      s.wall_ns.push_back(kStartWall + 2'000'000 + offset);
      const double k = static_cast<double>(i);
      cell(s, DeviceMetric::GpuUtilPercent, i) = 37.5 + k + d;
      cell(s, DeviceMetric::MemUsedBytes, i) = (12800.5 + k) * kMiB;
      cell(s, DeviceMetric::MemTotalBytes, i) = 81559 * kMiB;
      cell(s, DeviceMetric::PowerWatts, i) = 301.5 + k * 10;
      if (i % 2 == 0) {
        cell(s, DeviceMetric::TempGpuCelsius, i) = 60 + k;
        cell(s, DeviceMetric::EnergyJoules, i) = 100002.302 + k * 151.25;
        cell(s, DeviceMetric::SmClockMhz, i) = 1980;
        cell(s, DeviceMetric::SlowReadAgeSeconds, i) = 0.000195;
      }
    }
    run.devices.push_back(std::move(s));
  }
  HostSeries& h = run.host;
  h.values.assign(kHostMetricCount, {});
  h.core_percent.assign(2, {});
  for (std::size_t i = 0; i < 3; ++i) {
    const auto offset = static_cast<std::int64_t>(i) * 1'000'000'000 + 1'000;
    h.mono_ns.push_back(kStartMono + offset);
    h.wall_ns.push_back(kStartWall + offset);
    h.values[static_cast<std::size_t>(HostMetric::CpuPercent)].push_back(12.5 + static_cast<double>(i));
    h.values[static_cast<std::size_t>(HostMetric::MemUsedBytes)].push_back(983760896);
    for (std::size_t m = 2; m < kHostMetricCount; ++m) h.values[m].push_back(kNaN);
    h.core_percent[0].push_back(10.25);
    h.core_percent[1].push_back(i == 1 ? kNaN : 20.5);
  }
  return run;
}

ImportResult export_and_import(const RunData& run, const std::string& format) {
  std::string text;
  const TextSink sink = [&text](std::string_view s) { text += s; };
  write_export(run, *parse_output_format(format), std::nullopt, sink);
  return import_text(text, "round-trip");
}

class RoundTrip : public ::testing::Test {
 protected:
  ZoneGuard zone_{"CET-1CEST,M3.5.0,M10.5.0/3"};  // local timestamps in a zone that is not UTC
  RunData run_ = recorded_run();
};

TEST_F(RoundTrip, SeedFormatsKeepWhatTheyCarry) {
  for (const std::string format : {"json", "multi-json"}) {
    const ImportResult r = export_and_import(run_, format);
    EXPECT_EQ(r.format, format);
    EXPECT_EQ(r.samples_read, format == "json" ? 2 * kRows : kRows) << format;
    EXPECT_EQ(r.samples_dropped, 0u);
    ASSERT_EQ(r.data.devices.size(), 2u) << format;
    for (std::size_t d = 0; d < 2; ++d) {
      const DeviceSeries& in = r.data.devices[d];
      const DeviceSeries& out = run_.devices[d];
      EXPECT_EQ(in.info.index, out.info.index);
      EXPECT_EQ(in.info.name, out.info.name);
      EXPECT_EQ(in.info.vendor, out.info.vendor);
      ASSERT_EQ(in.mono_ns.size(), kRows) << format;
      for (std::size_t i = 0; i < kRows; ++i) {
        EXPECT_LT(distance(in.wall_ns[i], out.wall_ns[i]), 1'000) << format;  // microseconds
        EXPECT_LE(distance(in.mono_ns[i], out.mono_ns[i] - kStartMono), 500'000) << format;  // milliseconds
        for (DeviceMetric m : {DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes,
                               DeviceMetric::MemTotalBytes, DeviceMetric::PowerWatts}) {
          EXPECT_DOUBLE_EQ(at(in, m, i), at(out, m, i)) << format << " " << info(m).name << " row " << i;
        }
        const double temp = at(out, DeviceMetric::TempGpuCelsius, i);
        if (std::isnan(temp)) {
          EXPECT_TRUE(std::isnan(at(in, DeviceMetric::TempGpuCelsius, i)));
        } else {
          EXPECT_DOUBLE_EQ(at(in, DeviceMetric::TempGpuCelsius, i), temp);
        }
        // The seed formats have no field for these.
        EXPECT_TRUE(std::isnan(at(in, DeviceMetric::EnergyJoules, i)));
      }
    }
  }
}

TEST_F(RoundTrip, JsonLinesKeepEveryValueAndTheHost) {
  const ImportResult r = export_and_import(run_, "jsonl");
  EXPECT_EQ(r.samples_read, 2 * kRows + 3);
  ASSERT_EQ(r.data.devices.size(), 2u);
  for (std::size_t d = 0; d < 2; ++d) {
    const DeviceSeries& in = r.data.devices[d];
    const DeviceSeries& out = run_.devices[d];
    EXPECT_EQ(in.wall_ns, out.wall_ns);
    for (std::size_t i = 0; i < kRows; ++i) {
      EXPECT_LE(distance(in.mono_ns[i], out.mono_ns[i] - kStartMono), 1);
      for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
        if (std::isnan(out.values[m][i])) {
          EXPECT_TRUE(std::isnan(in.values[m][i])) << kDeviceMetrics[m].name;
        } else {
          EXPECT_EQ(in.values[m][i], out.values[m][i]) << kDeviceMetrics[m].name;
        }
      }
    }
  }
  const HostSeries& h = r.data.host;
  EXPECT_EQ(h.wall_ns, run_.host.wall_ns);
  EXPECT_EQ(h.values[static_cast<std::size_t>(HostMetric::CpuPercent)],
            run_.host.values[static_cast<std::size_t>(HostMetric::CpuPercent)]);
  ASSERT_EQ(h.core_percent.size(), 2u);
  EXPECT_EQ(h.core_percent[0], (std::vector<double>{10.25, 10.25, 10.25}));
  EXPECT_TRUE(std::isnan(h.core_percent[1][1]));
}

TEST_F(RoundTrip, CsvKeepsEveryValueAndTimesToTheMillisecond) {
  const ImportResult r = export_and_import(run_, "csv");
  EXPECT_EQ(r.samples_read, 2 * kRows);
  ASSERT_EQ(r.data.devices.size(), 2u);
  for (std::size_t d = 0; d < 2; ++d) {
    const DeviceSeries& in = r.data.devices[d];
    const DeviceSeries& out = run_.devices[d];
    for (std::size_t i = 0; i < kRows; ++i) {
      // Millisecond timestamps plus nanosecond elapsed_s: absolute within a
      // millisecond, relative to the nanosecond.
      EXPECT_LT(distance(in.wall_ns[i], out.wall_ns[i]), 1'000'000);
      EXPECT_LE(distance(in.wall_ns[i] - in.wall_ns[0], out.wall_ns[i] - out.wall_ns[0]), 1);
      for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
        if (std::isnan(out.values[m][i])) {
          EXPECT_TRUE(std::isnan(in.values[m][i])) << kDeviceMetrics[m].name;
        } else {
          EXPECT_EQ(in.values[m][i], out.values[m][i]) << kDeviceMetrics[m].name;
        }
      }
    }
  }
}

// Slow values are on every other row; the rows between repeat them, marked,
// with their age (0.5 s and the jitter later), and the importer drops the
// copies again (the tests above).
TEST_F(RoundTrip, RowsBetweenSlowReadsRepeatTheLastReadMarked) {
  auto exported = [this](const std::string& format) {
    std::string text;
    const TextSink sink = [&text](std::string_view s) { text += s; };
    write_export(run_, *parse_output_format(format), std::nullopt, sink);
    return text;
  };
  auto count = [](const std::string& text, std::string_view what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const std::string jsonl = exported("jsonl");
  EXPECT_EQ(count(jsonl, "\"slow_values_carried\":true"), kRows);  // 3 rows of each GPU
  EXPECT_EQ(count(jsonl, "\"temp_gpu_celsius\":"), 2 * kRows);
  EXPECT_EQ(count(jsonl, "\"slow_read_age_seconds\":0.5005"), kRows);  // each a tick after its read
  EXPECT_EQ(count(jsonl, "\"energy_joules\":"), kRows);            // read every other row, not repeated

  const std::string csv = exported("csv");
  EXPECT_NE(csv.find(",slow_values_carried\n"), std::string::npos);
  EXPECT_EQ(count(csv, ",1\n"), kRows);

  const std::string json = exported("json");
  EXPECT_EQ(count(json, "\"temperature\":null"), 0u);
  EXPECT_EQ(count(json, "\"slow_values_carried\":true"), kRows);
}

}  // namespace
}  // namespace gpuwatch
