// Import rules that need no fixture file: times, shapes and damage, each on a
// few lines of text.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "import/import.h"
#include "render/seed_files.h"
#include "zone_guard.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kS = 1'000'000'000;

std::string sample(const std::string& timestamp, const std::string& extra = "") {
  return R"({"timestamp": ")" + timestamp + R"(", "gpu_name": "NVIDIA A10G", "utilization": 50)" + extra + "}";
}

bool has_warning(const ImportResult& r, const std::string& part) {
  for (const auto& w : r.warnings) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

class ImportText : public ::testing::Test {
  ZoneGuard zone_{"UTC0"};
};

TEST_F(ImportText, ClockStepsBackwardsCountAsOneInterval) {
  // A daylight-saving change in local timestamps: 02:59:59 is followed by 02:00:00.
  const ImportResult r = import_text("[" + sample("2025-10-26T02:59:58") + "," + sample("2025-10-26T02:59:59") + "," +
                                         sample("2025-10-26T02:00:00") + "," + sample("2025-10-26T02:00:01") + "]",
                                     "dst");
  EXPECT_EQ(r.data.devices.at(0).mono_ns, (std::vector<std::int64_t>{0, kS, 2 * kS, 3 * kS}));
  EXPECT_TRUE(has_warning(r, "timestamps went backwards 1 time")) << r.warnings.at(0);
}

TEST_F(ImportText, ClockJumpingBackAndForthNeverMakesARunLongerThanAYear) {
  // Every timestamp is within 366 days of the median one, but each jump
  // forwards adds 334 days (and each one back a median step): found by import_fuzz.
  const std::string jan = "2025-01-01T00:00:00", dec = "2025-12-01T00:00:00";
  const ImportResult r = import_text(
      "[" + sample(jan) + "," + sample(dec) + "," + sample(jan) + "," + sample(dec) + "," + sample(jan) + "]", "jumps");
  constexpr std::int64_t kDay = 86'400 * kS;
  EXPECT_EQ(r.data.devices.at(0).mono_ns, (std::vector<std::int64_t>{0, 334 * kDay}));
  EXPECT_EQ(r.samples_dropped, 3u);
  EXPECT_TRUE(has_warning(r, "3 more than 366 days after the first sample"));
}

TEST_F(ImportText, ATimestampFarOffTheRunsClockIsDroppedSoThatTheExportImportsWhole) {
  // Two steps back and none forward: every sample is at monotonic 0, and the
  // one a year ahead would disagree with the run's clock by a year (import_fuzz).
  const ImportResult r = import_text("[" + sample("2027-11-26T05:55:47") + "," + sample("2026-11-26T05:53:37") + "," +
                                         sample("2026-11-25T19:51:13") + "]",
                                     "jumps");
  EXPECT_EQ(r.samples_dropped, 1u);
  EXPECT_TRUE(has_warning(r, "1 whose timestamp disagrees with the run's clock by more than a day"));
  std::string jsonl;
  write_sample_rows(r.data, OutputFormat::jsonl, [&jsonl](std::string_view s) { jsonl += s; });
  const ImportResult again = import_text(jsonl, "again");
  EXPECT_EQ(again.samples_dropped, 0u) << jsonl;
  EXPECT_EQ(again.samples_read, 2u);
}

TEST_F(ImportText, ElapsedSecondsOnlyWhenEverySampleHasThem) {
  const ImportResult r = import_text("[" + sample("2025-01-15T10:30:00", R"(, "elapsed_seconds": 7)") + "," +
                                         sample("2025-01-15T10:30:02") + "]",
                                     "mixed");
  EXPECT_EQ(r.data.devices.at(0).mono_ns, (std::vector<std::int64_t>{0, 2 * kS}));
  EXPECT_TRUE(has_warning(r, "some samples have no elapsed seconds"));
}

TEST_F(ImportText, GpuIndexSplitsOneFileIntoDevices) {
  // gputop.py logs the GPU selected on screen, which the user may switch.
  const ImportResult r = import_text("[" + sample("2025-01-15T10:30:00", R"(, "gpu_index": 0)") + "," +
                                         sample("2025-01-15T10:30:01", R"(, "gpu_index": 3)") + "," +
                                         sample("2025-01-15T10:30:02", R"(, "gpu_index": 1.5)") + "]",
                                     "switch");
  ASSERT_EQ(r.data.devices.size(), 2u);
  EXPECT_EQ(r.data.devices[1].info.index, 3);
  EXPECT_EQ(r.data.devices[1].mono_ns, std::vector<std::int64_t>{kS});
  EXPECT_EQ(r.samples_dropped, 1u);
  EXPECT_TRUE(has_warning(r, "1 with a gpu_index that is not an index from 0 to 1023"));
}

TEST_F(ImportText, UnusableEntriesOfATickAreSkippedAndCounted) {
  const ImportResult r = import_text(R"([{"timestamp": "2025-01-15T10:30:00", "multi_gpu_data": [
      {"gpu_index": 0, "utilization": 10}, {"gpu_name": "no fields"}, 7, {"utilization": 30}]},
    {"timestamp": "2025-01-15T10:30:01", "multi_gpu_data": [{"gpu_name": "none"}]}])",
                                     "ticks");
  EXPECT_EQ(r.format, "multi-json");
  EXPECT_EQ(r.samples_read, 1u);
  EXPECT_EQ(r.samples_dropped, 1u);
  ASSERT_EQ(r.data.devices.size(), 2u);
  EXPECT_EQ(r.data.devices[1].info.index, 3);  // no gpu_index: its position in the tick
  EXPECT_TRUE(has_warning(r, "3 GPU entries inside multi-GPU ticks had no usable GPU fields"));
  EXPECT_TRUE(has_warning(r, "1 multi-GPU ticks without a usable GPU entry"));
}

TEST_F(ImportText, CsvQuotedNamesAndDamagedRows) {
  const std::string header = "timestamp,elapsed_s,gpu_index,gpu_name,power_watts,surprise\n";
  const ImportResult r = import_text(header +
                                         "2025-01-15T10:30:00.000Z,0.5,0,\"GPU, \"\"the\"\" first\",300.5,x\n"
                                         "2025-01-15T10:30:01.000Z,1.5,0,\"GPU\",301,x,extra\n"
                                         "2025-01-15T10:30:02.000Z,2.5,0,GPU,abc,x\n"
                                         "2025-01-15T10:30:03.000Z,3.5,-1,GPU,1,x\n",
                                     "csv");
  EXPECT_EQ(r.samples_read, 2u);
  EXPECT_EQ(r.samples_dropped, 2u);
  const DeviceSeries& s = r.data.devices.at(0);
  EXPECT_EQ(s.info.name, "GPU, \"the\" first");
  EXPECT_DOUBLE_EQ(s.values[static_cast<std::size_t>(DeviceMetric::PowerWatts)][0], 300.5);
  EXPECT_TRUE(std::isnan(s.values[static_cast<std::size_t>(DeviceMetric::PowerWatts)][1]));  // "abc"
  // Start from timestamp - elapsed: 10:29:59.5.
  EXPECT_EQ(s.wall_ns[0], 1736937000 * kS);
  EXPECT_TRUE(has_warning(r, "column surprise"));
  EXPECT_TRUE(has_warning(r, "1 value was not a number"));
}

// Exports since schema_version 2 name the GPU "gpu" and carry the version on
// every line; older ones say "gpu_index". Both come back, nothing warned.
TEST_F(ImportText, JsonLinesAndCsvReadTheGpuUnderEitherName) {
  const ImportResult lines = import_text(
      "{\"schema_version\":2,\"type\":\"device\",\"wall_ns\":1736937000000000000,\"gpu\":1,\"power_watts\":1}\n"
      "{\"type\":\"device\",\"wall_ns\":1736937001000000000,\"gpu_index\":0,\"power_watts\":2}\n"
      "{\"schema_version\":2,\"type\":\"process\",\"gpu\":1,\"pid\":42,\"name\":\"python\","
      "\"first_seen_wall_ns\":1736937000000000000,\"last_seen_wall_ns\":1736937001000000000}\n",
      "lines");
  EXPECT_EQ(lines.samples_read, 3u);  // two samples and a process
  ASSERT_EQ(lines.data.devices.size(), 2u);
  EXPECT_EQ(lines.data.devices[0].info.index, 0);
  EXPECT_EQ(lines.data.devices[1].info.index, 1);
  ASSERT_EQ(lines.data.processes.size(), 1u);
  EXPECT_EQ(lines.data.processes[0].device_index, 1);
  EXPECT_TRUE(lines.warnings.empty()) << lines.warnings.at(0);
  const ImportResult csv = import_text("timestamp,elapsed_s,gpu,gpu_name,power_watts\n"
                                       "2025-01-15T10:30:00.000Z,0.5,2,GPU,300\n",
                                       "csv");
  EXPECT_EQ(csv.samples_read, 1u);
  EXPECT_EQ(csv.data.devices.at(0).info.index, 2);
  EXPECT_TRUE(csv.warnings.empty()) << csv.warnings.at(0);
}

TEST_F(ImportText, JsonLinesSkipBadLinesAndKeepTheRest) {
  const ImportResult r = import_text(
      "{\"type\":\"device\",\"wall_ns\":1736937000000000000,\"gpu_index\":0,\"gpu_util_percent\":40}\n"
      "\n"
      "{\"type\":\"device\",\"wall_ns\":1736937001000000000,\"gpu_index\":0,\"gpu_util_percent\":NaN}\n"
      "not json\n"
      "{\"type\":\"kernel\",\"timestamp\":\"2025-01-15T10:30:02Z\"}\n"
      "{\"type\":\"host\",\"timestamp\":\"2025-01-15T10:30:03Z\",\"cpu_percent\":\"12.5\",\"core_percent\":[1,null]}\n",
      "lines");
  EXPECT_EQ(r.samples_read, 3u);
  EXPECT_EQ(r.samples_dropped, 2u);
  EXPECT_TRUE(has_warning(r, "1 not valid JSON, 1 of neither type device nor host"));
  EXPECT_EQ(r.data.host.mono_ns, std::vector<std::int64_t>{3 * kS});
  EXPECT_EQ(r.data.host.values[static_cast<std::size_t>(HostMetric::CpuPercent)][0], 12.5);
  ASSERT_EQ(r.data.host.core_percent.size(), 2u);
  EXPECT_TRUE(std::isnan(r.data.host.core_percent[1][0]));
}

}  // namespace
}  // namespace gpuwatch
