#include "render/seed_files.h"

#include <cmath>

#include <gtest/gtest.h>

#include "render/units.h"

namespace gpuwatch {
namespace {

DeviceSeries series(int index, std::vector<double> util, double used_mib) {
  DeviceSeries s;
  s.info.index = index;
  s.info.name = "NVIDIA A10G";
  s.info.vendor = "NVIDIA";
  s.values.assign(kDeviceMetricCount, {});
  for (std::size_t i = 0; i < util.size(); ++i) {
    s.mono_ns.push_back(static_cast<std::int64_t>(i) * 1'000'000'000 + 5'000'000'000);
    s.wall_ns.push_back(static_cast<std::int64_t>(i) * 1'000'000'000);
    for (auto& col : s.values) col.push_back(kNaN);
    s.values[static_cast<std::size_t>(DeviceMetric::GpuUtilPercent)].back() = util[i];
    s.values[static_cast<std::size_t>(DeviceMetric::MemUsedBytes)].back() = used_mib * kMiB;
    s.values[static_cast<std::size_t>(DeviceMetric::MemTotalBytes)].back() = 24576 * kMiB;
  }
  return s;
}

std::string collect(const std::function<void(const TextSink&)>& f) {
  std::string out;
  f([&](std::string_view s) { out += s; });
  return out;
}

TEST(SeedFiles, SingleGpuArrayHasTheSeedFieldsAndNullForAbsent) {
  RunData run;
  run.run.start_mono_ns = 5'000'000'000;
  run.devices.push_back(series(0, {85, 90}, 12800));
  const std::string out = collect([&](const TextSink& e) { write_seed_single_json(run, 0, e); });
  EXPECT_NE(out.find(R"("gpu_index":0,"gpu_name":"NVIDIA A10G","gpu_type":"nvidia","utilization":85,)"
                     R"("memory_used":12800,"memory_total":24576,"memory_percent":52.1,"power":null,)"
                     R"("temperature":null,)"), std::string::npos)
      << out;
  EXPECT_NE(out.find(R"("elapsed_seconds":1})"), std::string::npos) << out;
  EXPECT_EQ(out.front(), '[');
  EXPECT_EQ(out.substr(out.size() - 2), "]\n");
}

TEST(SeedFiles, MultiGpuGroupsTicksAndAggregates) {
  RunData run;
  run.run.start_mono_ns = 5'000'000'000;
  run.devices.push_back(series(0, {80}, 12800));
  run.devices.push_back(series(1, {90}, 12750));
  const std::string out = collect([&](const TextSink& e) { write_seed_multi_json(run, e); });
  EXPECT_NE(out.find(R"("aggregate_stats":{"total_memory_used":25550,"total_memory_total":49152,)"
                     R"("total_memory_percent":52,"average_utilization":85,"total_power":null,)"
                     R"("max_temperature":null,"gpu_count":2})"), std::string::npos)
      << out;
}

// Issue 22 item 19: the first tick precedes the first slow read, so the
// first row of each GPU had `temperature: null` in every export, where the
// seed tools' scripts take each row's temperature as a number.
TEST(SeedFiles, FirstRowsOfEachGpuCarryTheFirstSlowRead) {
  RunData run;
  run.run.start_mono_ns = 5'000'000'000;
  for (int gpu : {0, 1}) {
    DeviceSeries s = series(gpu, {80, 81, 82, 83}, 12800);
    // Read 0.3 s after the first tick (1.0 s before the second, as stored: on the next tick).
    s.values[static_cast<std::size_t>(DeviceMetric::TempGpuCelsius)][1] = 60 + gpu;
    s.values[static_cast<std::size_t>(DeviceMetric::SlowReadAgeSeconds)][1] = 0.7;
    run.devices.push_back(std::move(s));
  }
  const std::string single = collect([&](const TextSink& e) { write_seed_single_json(run, std::nullopt, e); });
  EXPECT_EQ(single.find(R"("temperature":null)"), std::string::npos) << single;
  // The rows before the read: its value, a negative age (the read came after), the mark.
  EXPECT_NE(single.find(R"("gpu_index":0,)"), std::string::npos);
  EXPECT_NE(single.find(R"("temperature":60,"slow_read_age_seconds":-0.3,"slow_values_carried":true,)"
                        R"("elapsed_seconds":0})"),
            std::string::npos)
      << single;
  EXPECT_NE(single.find(R"("temperature":61,"slow_read_age_seconds":-0.3,"slow_values_carried":true,)"
                        R"("elapsed_seconds":0})"),
            std::string::npos)
      << single;
  // The read's own row is written as read, the later ones carry it forward.
  EXPECT_NE(single.find(R"("temperature":60,"elapsed_seconds":1})"), std::string::npos) << single;
  EXPECT_NE(single.find(R"("temperature":60,"slow_read_age_seconds":1.7,"slow_values_carried":true,)"
                        R"("elapsed_seconds":2})"),
            std::string::npos)
      << single;

  const std::string multi = collect([&](const TextSink& e) { write_seed_multi_json(run, e); });
  EXPECT_EQ(multi.find(R"("temperature":null)"), std::string::npos) << multi;
  EXPECT_EQ(multi.find(R"("max_temperature":null)"), std::string::npos) << multi;
  std::string jsonl;
  write_sample_rows(run, OutputFormat::jsonl, [&](std::string_view s) { jsonl += s; });
  const std::string first_line = jsonl.substr(0, jsonl.find('\n'));
  EXPECT_NE(first_line.find(R"("temp_gpu_celsius":60)"), std::string::npos) << first_line;
}

// Issue 9 item 22: a run named in Chinese got a file name of underscores.
TEST(FileNamePart, KeepsUtf8LettersAndReplacesWhatIsUnsafe) {
  EXPECT_EQ(file_name_part("训练-bert_v2.1"), "训练-bert_v2.1");
  EXPECT_EQ(file_name_part("café ünïcode"), "café_ünïcode");
  EXPECT_EQ(file_name_part("🚀run"), "🚀run");
  EXPECT_EQ(file_name_part("a/b\\c"), "a_b_c");
  EXPECT_EQ(file_name_part(std::string("a\0b\n\x7f", 5)), "a_b__");
  EXPECT_EQ(file_name_part("x<>:\"|?*y"), "x_______y");
  EXPECT_EQ(file_name_part(".hidden"), "_hidden");
  EXPECT_EQ(file_name_part("-rf"), "_rf");
  EXPECT_EQ(file_name_part("a.b"), "a.b");
  EXPECT_EQ(file_name_part("bad\xff\xfeutf8"), "bad__utf8");
  EXPECT_EQ(file_name_part("c1\xc2\x85x"), "c1_x");             // NEL, a C1 control
  EXPECT_EQ(file_name_part("ls\xe2\x80\xa8x"), "ls_x");        // LINE SEPARATOR
  EXPECT_EQ(file_name_part(""), "run");
  std::string cjk;
  for (int i = 0; i < 100; ++i) cjk += "训";
  EXPECT_EQ(file_name_part(cjk).size(), 120u);  // 40 whole characters
}

TEST(SeedFiles, EmptyRunIsAnEmptyArray) {
  RunData run;
  EXPECT_EQ(collect([&](const TextSink& e) { write_seed_single_json(run, std::nullopt, e); }), "[]\n");
  EXPECT_EQ(collect([&](const TextSink& e) { write_seed_multi_json(run, e); }), "[]\n");
}

}  // namespace
}  // namespace gpuwatch
