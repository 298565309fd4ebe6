// Out-of-range values and impossible times in imported files: each rejected
// on its own, counted in a warning per field, the rest of the file kept.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "import/import.h"
#include "zone_guard.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kS = 1'000'000'000;

std::string sample(const std::string& timestamp, const std::string& fields) {
  return R"({"timestamp": ")" + timestamp + R"(", "gpu_name": "NVIDIA A10G")" + fields + "}";
}

std::string warning_with(const ImportResult& r, const std::string& part) {
  for (const auto& w : r.warnings) {
    if (w.find(part) != std::string::npos) return w;
  }
  return "";
}

double value(const ImportResult& r, DeviceMetric m, std::size_t row) {
  return r.data.devices.at(0).values[static_cast<std::size_t>(m)].at(row);
}

class Plausible : public ::testing::Test {
  ZoneGuard zone_{"UTC0"};
};

TEST_F(Plausible, OutOfRangeValuesAreAbsentAndCountedPerField) {
  const ImportResult r = import_text(
      "[" + sample("2025-01-15T10:30:00", R"(, "utilization": 150, "memory_used": 1e300, "power": 250)") + "," +
          sample("2025-01-15T10:30:01", R"(, "utilization": 50, "memory_used": 2048, "power": -1)") + "," +
          sample("2025-01-15T10:30:02", R"(, "utilization": 101, "memory_used": 4096, "power": 251)") + "]",
      "absurd");
  EXPECT_EQ(r.samples_read, 3u);  // values go, samples stay
  EXPECT_EQ(r.samples_dropped, 0u);
  EXPECT_TRUE(std::isnan(value(r, DeviceMetric::GpuUtilPercent, 0)));
  EXPECT_EQ(value(r, DeviceMetric::GpuUtilPercent, 1), 50);
  EXPECT_TRUE(std::isnan(value(r, DeviceMetric::MemUsedBytes, 0)));  // never negative memory
  EXPECT_EQ(value(r, DeviceMetric::MemUsedBytes, 1), 2048.0 * 1024 * 1024);
  EXPECT_TRUE(std::isnan(value(r, DeviceMetric::PowerWatts, 1)));
  EXPECT_EQ(value(r, DeviceMetric::PowerWatts, 2), 251);
  EXPECT_EQ(warning_with(r, "gpu_util_percent"), "2 values were out of range for gpu_util_percent (0 to 100 %): taken as absent");
  EXPECT_EQ(warning_with(r, "mem_used_bytes"), "1 value was out of range for mem_used_bytes (0 to 1 PiB): taken as absent");
  EXPECT_EQ(warning_with(r, "power_watts"), "1 value was out of range for power_watts (0 to 10 kW): taken as absent");
}

TEST_F(Plausible, JsonLinesAndCsvValuesAreCheckedToo) {
  const ImportResult lines = import_text(
      "{\"type\":\"device\",\"wall_ns\":1736937000000000000,\"gpu_index\":0,\"temp_gpu_celsius\":1e308,"
      "\"energy_joules\":5}\n"
      "{\"type\":\"host\",\"wall_ns\":1736937001000000000,\"cpu_percent\":-3,\"core_percent\":[50,400]}\n",
      "lines");
  EXPECT_TRUE(std::isnan(value(lines, DeviceMetric::TempGpuCelsius, 0)));
  EXPECT_EQ(value(lines, DeviceMetric::EnergyJoules, 0), 5);
  EXPECT_NE(warning_with(lines, "1 value was out of range for temp_gpu_celsius"), "");
  EXPECT_NE(warning_with(lines, "1 value was out of range for host cpu_percent"), "");
  EXPECT_NE(warning_with(lines, "1 value was out of range for host core_percent"), "");
  EXPECT_EQ(lines.data.host.core_percent.at(0).at(0), 50);

  const ImportResult csv = import_text(
      "timestamp,elapsed_s,gpu_index,gpu_name,mem_total_bytes\n"
      "2025-01-15T10:30:00.000Z,0.5,0,GPU,1e308\n"
      "2025-01-15T10:30:01.000Z,1.5,0,GPU,85899345920\n",
      "csv");
  EXPECT_EQ(csv.samples_read, 2u);
  EXPECT_NE(warning_with(csv, "1 value was out of range for mem_total_bytes"), "");
}

TEST_F(Plausible, ElapsedSecondsBeyondAYearAreIgnored) {
  // The 277,777-hour run: elapsed_seconds 1e9 in one sample.
  const ImportResult r = import_text("[" + sample("2025-01-15T10:30:00", R"(, "utilization": 1, "elapsed_seconds": 0)") +
                                         "," +
                                         sample("2025-01-15T10:30:01", R"(, "utilization": 2, "elapsed_seconds": 1e9)") +
                                         "]",
                                     "long");
  EXPECT_EQ(r.data.devices.at(0).mono_ns, (std::vector<std::int64_t>{0, kS}));  // from the timestamps
  EXPECT_NE(warning_with(r, "1 elapsed-seconds value was negative or beyond 366 days: ignored"), "");
}

TEST_F(Plausible, ElapsedSecondsThatContradictTheTimestampDropTheSample) {
  const ImportResult r = import_text(
      "[" + sample("2025-01-15T10:30:00", R"(, "utilization": 1, "elapsed_seconds": 0)") + "," +
          sample("2025-01-15T10:30:01", R"(, "utilization": 2, "elapsed_seconds": 30000000)") + "," +
          sample("2025-01-15T10:30:02", R"(, "utilization": 3, "elapsed_seconds": 2)") + "]",
      "contradiction");
  EXPECT_EQ(r.samples_read, 2u);
  EXPECT_EQ(r.samples_dropped, 1u);
  EXPECT_EQ(r.data.devices.at(0).mono_ns, (std::vector<std::int64_t>{0, 2 * kS}));
  EXPECT_EQ(warning_with(r, "dropped"),
            "1 sample dropped: 1 whose elapsed seconds disagree with their timestamp by more than a day");
  EXPECT_EQ(*r.data.run.end_wall_ns - r.data.run.start_wall_ns, 2 * kS);
}

// Found by import_fuzz: the export of such a run listed one GPU, its import two.
TEST_F(Plausible, AGpuWhoseEveryRowIsDroppedIsNotInTheRun) {
  const ImportResult r = import_text(
      "timestamp,elapsed_s,gpu_index,gpu_util_percent\n"
      "2025-11-26T05:55:47.662Z,0.0014,0,80\n"
      "2026-11-26T05:55:47.662Z,0.0014,1,100\n",
      "one gone");
  EXPECT_EQ(r.samples_read, 1u);
  EXPECT_EQ(r.samples_dropped, 1u);
  ASSERT_EQ(r.data.devices.size(), 1u);
  EXPECT_EQ(r.data.devices[0].info.index, 1);
}

TEST_F(Plausible, ATimestampFarFromTheRestDropsItsSample) {
  const ImportResult r = import_text("[" + sample("2025-01-15T10:30:00", R"(, "utilization": 1)") + "," +
                                         sample("2150-01-15T10:30:01", R"(, "utilization": 2)") + "," +
                                         sample("2025-01-15T10:30:02", R"(, "utilization": 3)") + "]",
                                     "outlier");
  EXPECT_EQ(r.samples_read, 2u);
  EXPECT_EQ(r.data.devices.at(0).mono_ns, (std::vector<std::int64_t>{0, 2 * kS}));
  EXPECT_NE(warning_with(r, "1 with a timestamp more than 366 days from the run's median time"), "");
}

TEST_F(Plausible, CsvRowsWhoseClocksDisagreeAreDropped) {
  const ImportResult r = import_text(
      "timestamp,elapsed_s,gpu_index,gpu_name,power_watts\n"
      "2025-01-15T10:30:00.000Z,0.5,0,GPU,100\n"
      "2025-01-15T10:30:01.000Z,30000000,0,GPU,200\n"
      "2150-01-15T10:30:02.000Z,2.5,0,GPU,300\n"
      "2025-01-15T10:30:03.000Z,3.5,0,GPU,400\n",
      "csv");
  EXPECT_EQ(r.samples_read, 2u);
  EXPECT_EQ(r.samples_dropped, 2u);
  EXPECT_EQ(r.data.devices.at(0).mono_ns, (std::vector<std::int64_t>{kS / 2, 7 * kS / 2}));
  EXPECT_NE(warning_with(r, "2 whose elapsed seconds disagree with their timestamp"), "");
}

TEST_F(Plausible, EventsOfDroppedSamplesGoWithThem) {
  const ImportResult r = import_text(
      "[" + sample("2025-01-15T10:30:00", R"(, "utilization": 1, "training_metadata": {"lr": 8})") + "," +
          sample("2150-01-15T10:30:01", R"(, "utilization": 2, "training_metadata": {"lr": 16})") + "," +
          sample("2025-01-15T10:30:02", R"(, "utilization": 3, "training_metadata": {"lr": 32})") + "]",
      "events");
  ASSERT_EQ(r.data.events.size(), 2u);
  EXPECT_EQ(r.data.events[0].message, R"({"lr":8})");
  EXPECT_EQ(r.data.events[1].message, R"({"lr":32})");
  EXPECT_EQ(r.data.events[1].time.mono_ns, 2 * kS);
}

}  // namespace
}  // namespace gpuwatch
