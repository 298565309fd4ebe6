// Every format import reads, from the fixtures in tests/fixtures/import
// (their README says where the values come from).
#include "import/import.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "render/units.h"
#include "zone_guard.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kS = 1'000'000'000;

ImportResult fixture(const std::string& name) {
  return import_file(std::string(GPUWATCH_FIXTURES) + "/import/" + name);
}

double at(const DeviceSeries& s, DeviceMetric m, std::size_t i) { return s.values[static_cast<std::size_t>(m)][i]; }

bool supports(const DeviceSeries& s, DeviceMetric m) {
  for (DeviceMetric x : s.info.supported) {
    if (x == m) return true;
  }
  return false;
}

bool has_warning(const ImportResult& r, const std::string& part) {
  for (const auto& w : r.warnings) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

std::string all_warnings(const ImportResult& r) {
  std::string out;
  for (const auto& w : r.warnings) out += w + "\n";
  return out;
}

class ImportFixtures : public ::testing::Test {
  ZoneGuard zone_{"UTC0"};
};

TEST_F(ImportFixtures, SeedWrapperFormat) {
  const ImportResult r = fixture("seed_wrapper_w7900.json");
  EXPECT_EQ(r.format, "json");
  EXPECT_EQ(r.samples_read, 5u);
  EXPECT_EQ(r.samples_dropped, 0u);
  EXPECT_TRUE(r.warnings.empty()) << all_warnings(r);
  const RunData& d = r.data;
  EXPECT_EQ(d.run.name, "seed_wrapper_w7900");
  EXPECT_EQ(d.run.status, RunStatus::Finished);
  EXPECT_EQ(d.run.end_reason, "imported");
  EXPECT_DOUBLE_EQ(d.run.interval_s, 1.0);
  ASSERT_EQ(d.devices.size(), 1u);
  const DeviceSeries& s = d.devices[0];
  EXPECT_EQ(s.info.index, 0);
  EXPECT_EQ(s.info.name, "AMD Radeon Pro W7900");
  EXPECT_EQ(s.info.vendor, "AMD");
  ASSERT_EQ(s.mono_ns.size(), 5u);
  // Monotonic time is elapsed_seconds; wall time the local timestamp.
  EXPECT_EQ(s.mono_ns[0], 10'500'000'000);
  EXPECT_EQ(s.mono_ns[4], 14'500'000'000);
  EXPECT_EQ(s.wall_ns[0], 1756442111 * kS + 660'455'000);
  EXPECT_EQ(s.wall_ns[4], 1756442115 * kS + 664'455'000);
  EXPECT_EQ(d.run.start_mono_ns, 0);
  EXPECT_EQ(d.run.start_wall_ns, 1756442101 * kS + 162'455'000);  // median of wall - elapsed
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::GpuUtilPercent, 0), 95.0);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::MemUsedBytes, 0), 1424.3 * kMiB);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::MemTotalBytes, 0), 49152 * kMiB);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::PowerWatts, 1), 252.5);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::TempGpuCelsius, 4), 77.0);
  EXPECT_EQ(s.info.supported.size(), 5u);
  EXPECT_EQ(s.info.static_values.get(DeviceMetric::MemTotalBytes), 49152 * kMiB);
  // The wrapper's epoch and phase become annotations; the whole object a mark.
  ASSERT_EQ(d.events.size(), 3u);
  EXPECT_EQ(d.events[0].kind, "epoch");
  EXPECT_EQ(d.events[1].kind, "phase");
  EXPECT_EQ(d.events[2].kind, "mark");
  EXPECT_EQ(d.events[2].time.mono_ns, 10'500'000'000);
  // "1e-3" stays the text it was: the message is the JSON as written.
  EXPECT_EQ(d.events[2].message, R"({"epoch":1,"batch":100,"phase":"training","optimizer":"adamw","lr":"1e-3"})");
}

TEST_F(ImportFixtures, LegacySingleGpuFormat) {
  const ImportResult r = fixture("legacy_a10g.json");
  EXPECT_EQ(r.format, "json");
  EXPECT_EQ(r.samples_read, 4u);
  const DeviceSeries& s = r.data.devices.at(0);
  EXPECT_EQ(s.info.vendor, "NVIDIA");  // from the name: the legacy format has no gpu_type
  // No elapsed seconds: monotonic time from the timestamps.
  EXPECT_EQ(s.mono_ns, (std::vector<std::int64_t>{0, kS, 2 * kS, 3 * kS}));
  EXPECT_EQ(r.data.run.start_wall_ns, 1736937000 * kS);  // 2025-01-15T10:30:00
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::MemUsedBytes, 3), 12850 * kMiB);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::PowerWatts, 3), 160);
  EXPECT_FALSE(supports(s, DeviceMetric::TempGpuCelsius));
}

TEST_F(ImportFixtures, GputopAmdTemperatureSensorsClocksAndLimits) {
  const ImportResult r = fixture("gputop_w7900.json");
  EXPECT_EQ(r.format, "gputop-json");
  EXPECT_EQ(r.samples_read, 4u);
  EXPECT_EQ(r.samples_dropped, 0u);
  const DeviceSeries& s = r.data.devices.at(0);
  EXPECT_EQ(s.info.vendor, "AMD");
  EXPECT_EQ(s.mono_ns, (std::vector<std::int64_t>{0, 1'060'000'000, 2'120'000'000, 3'180'000'000}));
  EXPECT_DOUBLE_EQ(r.data.run.interval_s, 1.06);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::TempGpuCelsius, 0), 41.0);  // Edge
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::TempMemCelsius, 0), 52.0);  // Memory
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::TempJunctionCelsius, 0), 45.0);  // Junction
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::MemUsedBytes, 1), 20480.25 * kMiB);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::MemTotalBytes, 1), 49136 * kMiB);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::PowerLimitWatts, 2), 295);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::FanPercent, 0), 21.17647058823529);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::SmClockMhz, 1), 2495);    // sclk
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::MemClockMhz, 0), 96);     // mclk
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::SmClockMaxMhz, 0), 2495); // highest sclk state
  EXPECT_EQ(s.info.static_values.get(DeviceMetric::MemClockMaxMhz), 1124);
  EXPECT_FALSE(has_warning(r, "temperature Junction")) << all_warnings(r);
  EXPECT_TRUE(has_warning(r, "clock fclk"));
  EXPECT_TRUE(has_warning(r, "temp_limits"));
  EXPECT_TRUE(has_warning(r, "performance_level"));
}

TEST_F(ImportFixtures, GputopZerosForValuesItCouldNotRead) {
  const ImportResult r = fixture("gputop_a10g.json");
  const DeviceSeries& s = r.data.devices.at(0);
  EXPECT_EQ(s.info.vendor, "NVIDIA");                          // gpu_type nvidia_desktop
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::TempGpuCelsius, 0), 60);  // sensor "GPU"
  EXPECT_FALSE(supports(s, DeviceMetric::FanPercent));           // 0 in every sample: no fan
  EXPECT_TRUE(std::isnan(at(s, DeviceMetric::FanPercent, 0)));
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::SmClockMhz, 2), 1710);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::MemClockMhz, 2), 6251);
}

TEST_F(ImportFixtures, GputopMultiGpuTicks) {
  const ImportResult r = fixture("gputop_a10g_multi_gpu.json");
  EXPECT_EQ(r.format, "gputop-multi-json");
  EXPECT_EQ(r.samples_read, 3u);  // ticks
  ASSERT_EQ(r.data.devices.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const DeviceSeries& s = r.data.devices[static_cast<std::size_t>(i)];
    EXPECT_EQ(s.info.index, i);
    EXPECT_EQ(s.info.vendor, "NVIDIA");
    EXPECT_EQ(s.mono_ns, (std::vector<std::int64_t>{0, 1'110'000'000, 2'220'000'000}));
    EXPECT_DOUBLE_EQ(at(s, DeviceMetric::PowerLimitWatts, 0), 300);
    EXPECT_DOUBLE_EQ(at(s, DeviceMetric::MemTotalBytes, 0), 23028 * kMiB);
  }
  const DeviceSeries& gpu2 = r.data.devices[2];
  EXPECT_DOUBLE_EQ(at(gpu2, DeviceMetric::MemUsedBytes, 0), 12825.25 * kMiB);
  EXPECT_DOUBLE_EQ(at(gpu2, DeviceMetric::TempGpuCelsius, 2), 62);
  EXPECT_DOUBLE_EQ(at(gpu2, DeviceMetric::PowerWatts, 1), 203.3);
}

TEST_F(ImportFixtures, OwnExportsOfEveryFormat) {
  for (const auto& [file, format, read] :
       std::vector<std::tuple<std::string, std::string, std::size_t>>{{"gpuwatch_h100.json", "json", 10},
                                                                     {"gpuwatch_h100_multi_gpu.json", "multi-json", 5},
                                                                     {"gpuwatch_h100.jsonl", "jsonl", 12},
                                                                     {"gpuwatch_h100.csv", "csv", 10}}) {
    const ImportResult r = fixture(file);
    EXPECT_EQ(r.format, format) << file;
    EXPECT_EQ(r.samples_read, read) << file;
    EXPECT_EQ(r.samples_dropped, 0u) << file;
    ASSERT_EQ(r.data.devices.size(), 2u) << file;
    EXPECT_EQ(r.data.devices[1].info.name, "NVIDIA H100 80GB HBM3") << file;
    EXPECT_EQ(r.data.devices[1].info.vendor, "NVIDIA") << file;
    EXPECT_EQ(r.data.devices[1].mono_ns.size(), 5u) << file;
    EXPECT_DOUBLE_EQ(at(r.data.devices[1], DeviceMetric::GpuUtilPercent, 4), 100) << file;
  }
  // The row formats keep every metric, in stored units.
  const ImportResult csv = fixture("gpuwatch_h100.csv");
  const DeviceSeries& s = csv.data.devices[0];
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::MemUsedBytes, 1), 9362653179);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::EnergyJoules, 1), 100002.302);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::PcieLinkGen, 1), 5);
  EXPECT_TRUE(std::isnan(at(s, DeviceMetric::EnergyJoules, 0)));
  const ImportResult jsonl = fixture("gpuwatch_h100.jsonl");
  EXPECT_EQ(jsonl.data.host.mono_ns.size(), 2u);
  EXPECT_EQ(jsonl.data.devices[0].wall_ns[0], 1795672547662056237);  // wall_ns, exact
}

TEST_F(ImportFixtures, TruncatedFilesGiveEveryCompleteSample) {
  struct Case {
    std::string file;
    std::size_t read;
    std::size_t dropped;
    std::string warning;
  };
  for (const Case& c : std::vector<Case>{
           {"gputop_w7900_cut_mid_string.json", 3, 1, "1 sample dropped: 1 cut off by the end of the file"},
           {"gputop_w7900_cut_mid_number.json", 3, 1, "1 sample dropped: 1 cut off by the end of the file"},
           {"seed_wrapper_missing_bracket.json", 5, 0, "without the array's closing ']'"},
           {"seed_wrapper_trailing_garbage.json", 5, 0, "ignored 110 bytes at offset 1651"},
           {"gputop_a10g_multi_gpu_cut.json", 2, 1, "1 sample dropped"},
           {"gpuwatch_h100_cut.jsonl", 11, 1, "1 sample dropped: 1 cut off by the end of the file"},
           {"gpuwatch_h100_cut.csv", 9, 1, "1 sample dropped: 1 cut off by the end of the file"},
       }) {
    const ImportResult r = fixture(c.file);
    EXPECT_EQ(r.samples_read, c.read) << c.file;
    EXPECT_EQ(r.samples_dropped, c.dropped) << c.file;
    EXPECT_TRUE(has_warning(r, c.warning)) << c.file << ":\n" << all_warnings(r);
  }
  // The partial tick is not half-imported.
  const ImportResult multi = fixture("gputop_a10g_multi_gpu_cut.json");
  for (const DeviceSeries& s : multi.data.devices) EXPECT_EQ(s.mono_ns.size(), 2u);
}

TEST_F(ImportFixtures, PythonQuirksAndDamagedElements) {
  const ImportResult r = fixture("gputop_python_quirks.json");
  EXPECT_EQ(r.samples_read, 3u);
  EXPECT_EQ(r.samples_dropped, 3u);
  EXPECT_TRUE(has_warning(r, "3 samples dropped: 1 not JSON objects, 1 without any GPU field")) << all_warnings(r);
  EXPECT_TRUE(has_warning(r, "1 without a readable timestamp"));
  EXPECT_TRUE(has_warning(r, "2 values were NaN or Infinity"));
  EXPECT_TRUE(has_warning(r, "1 byte was not UTF-8"));
  EXPECT_TRUE(has_warning(r, "1 number was written as a string"));
  const DeviceSeries& s = r.data.devices.at(0);
  ASSERT_EQ(s.mono_ns.size(), 3u);
  EXPECT_TRUE(std::isnan(at(s, DeviceMetric::PowerWatts, 0)));  // NaN
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::PowerWatts, 1), 205.0);
  EXPECT_DOUBLE_EQ(at(s, DeviceMetric::GpuUtilPercent, 1), 96.5);  // "96.5"
  EXPECT_FALSE(supports(s, DeviceMetric::FanPercent));            // 0, Infinity, 0
}

TEST(ImportErrors, FilesWithoutASampleAreErrors) {
  auto message = [](std::string_view text) -> std::string {
    try {
      import_text(text, "x");
    } catch (const ImportError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message(""), "the file is empty");
  EXPECT_EQ(message(" \n\t"), "the file is empty");
  EXPECT_NE(message("hello, world\n").find("not a format gpuwatch imports"), std::string::npos);
  EXPECT_NE(message(std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10)).find("not a format"), std::string::npos);
  EXPECT_EQ(message("[]"), "no sample in this json file");
  EXPECT_EQ(message("[1, \"a\", {\"x\": 1}]"),
            "no usable sample in this json file (3 dropped: 2 not JSON objects, 1 without a readable timestamp)");
  EXPECT_EQ(message("[{\"timestamp\": \"2025-01-15T10:30:00\", \"util"),
            "no usable sample in this json file (1 dropped: 1 cut off by the end of the file)");
  EXPECT_NE(message("{\"type\": \"device\"}\n").find("no usable sample in this jsonl file"), std::string::npos);
  EXPECT_NE(message("timestamp,elapsed_s,gpu_index\n").find("no sample in this csv file"), std::string::npos);
}

TEST(ImportErrors, MissingFileAndDirectory) {
  EXPECT_THROW(import_file("/nonexistent/gpu_stats.json"), ImportError);
  EXPECT_THROW(import_file(GPUWATCH_FIXTURES), ImportError);
}

// The lookup tries the metric after the last one first (an export's order):
// fields in any other order, known fields and unknown ones read as before.
TEST(ImportJsonl, FieldsInAnyOrderAreReadAndUnknownOnesNoted) {
  const std::string in_order =
      R"({"type":"device","wall_ns":1795672547000000000,"elapsed_s":0,"gpu":0,"gpu_util_percent":40,)"
      R"("mem_used_bytes":1000,"power_watts":100.5})" "\n";
  const std::string shuffled =
      R"({"power_watts":100.5,"bogus_field":1,"gpu":0,"mem_used_bytes":1000,"type":"device",)"
      R"("gpu_util_percent":40,"elapsed_s":0,"wall_ns":1795672547000000000})" "\n";
  const ImportResult a = import_text(in_order, "a");
  const ImportResult b = import_text(shuffled, "b");
  for (DeviceMetric m : {DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes, DeviceMetric::PowerWatts}) {
    EXPECT_EQ(at(a.data.devices[0], m, 0), at(b.data.devices[0], m, 0));
  }
  EXPECT_EQ(at(b.data.devices[0], DeviceMetric::PowerWatts, 0), 100.5);
  EXPECT_FALSE(has_warning(a, "bogus_field")) << all_warnings(a);
  EXPECT_TRUE(has_warning(b, "bogus_field")) << all_warnings(b);
}

}  // namespace
}  // namespace gpuwatch
