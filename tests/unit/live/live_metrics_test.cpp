#include "live/live_metrics.h"

#include <cmath>
#include <map>
#include <string>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

DeviceSample sample(int index, double util, double used_gib, std::optional<double> watts = std::nullopt,
                    std::optional<double> joules = std::nullopt) {
  DeviceSample s;
  s.device_index = index;
  s.time = Timestamp{1'000'000'000, 2'000'000'000};
  s.values.set(DeviceMetric::GpuUtilPercent, util);
  s.values.set(DeviceMetric::MemUsedBytes, used_gib * kGiB);
  if (watts) s.values.set(DeviceMetric::PowerWatts, *watts);
  if (joules) s.values.set(DeviceMetric::EnergyJoules, *joules);
  return s;
}

std::map<std::string, double> as_map(const NamedValues& values) { return {values.begin(), values.end()}; }

TEST(LiveMetrics, NamesUnitsAndAggregatesOfTheChosenGpus) {
  LiveWindow window(1);
  window.on_device_sample(sample(0, 60, 10, 250.0, 5000.0));
  window.on_device_sample(sample(1, 80, 20, 300.0, 9000.0));
  window.on_device_sample(sample(2, 5, 1, 50.0));  // not the job's
  window.on_tick(Timestamp{});
  const std::vector<int> gpus{0, 1};
  const auto m = as_map(live_metrics(window.snapshot(0), gpus, {{0, 1000.0}, {1, 500.0}, {2, 70.0}}));
  EXPECT_DOUBLE_EQ(m.at("gpu_0_memory"), 10);
  EXPECT_DOUBLE_EQ(m.at("gpu_1_memory"), 20);
  EXPECT_DOUBLE_EQ(m.at("gpu_0_utilization"), 60);
  EXPECT_DOUBLE_EQ(m.at("gpu_1_power"), 300);
  EXPECT_DOUBLE_EQ(m.at("gpu_0_energy"), 1000);
  EXPECT_DOUBLE_EQ(m.at("gpu_1_energy"), 500);
  EXPECT_DOUBLE_EQ(m.at("gpu_total_memory"), 30);
  EXPECT_DOUBLE_EQ(m.at("gpu_avg_utilization"), 70);
  EXPECT_NEAR(m.at("gpu_load_balance_cv"), 10.0 / 70.0 * 100, 1e-9);  // population std / mean
  EXPECT_DOUBLE_EQ(m.at("gpu_total_power"), 550);
  EXPECT_DOUBLE_EQ(m.at("gpu_total_energy"), 1500);
  EXPECT_EQ(m.count("gpu_2_memory"), 0u);
  EXPECT_EQ(m.size(), 13u);
}

TEST(LiveMetrics, OneGpuHasNoCvAndMissingReadingsAreLeftOut) {
  LiveWindow window(1);
  window.on_device_sample(sample(3, 40, 2));
  window.on_device_sample(sample(4, 40, 2));
  window.on_device_lost(4, Timestamp{});
  const std::vector<int> gpus{3, 4, 7};  // 4 lost, 7 never seen
  const auto m = as_map(live_metrics(window.snapshot(0), gpus, {}));
  EXPECT_EQ(m, (std::map<std::string, double>{{"gpu_3_memory", 2},
                                              {"gpu_3_utilization", 40},
                                              {"gpu_total_memory", 2},
                                              {"gpu_avg_utilization", 40}}));
  EXPECT_TRUE(live_metrics(LiveSnapshot{}, gpus, {}).empty());
}

TEST(LiveMetrics, TheJobsGpusElseAllRecorded) {
  const std::vector<int> recorded{0, 1, 2};
  EXPECT_EQ(metrics_gpus(JobGpus{JobGpuSource::VisibleDevices, {1}, {"CUDA_VISIBLE_DEVICES"}}, recorded),
            std::vector<int>{1});
  EXPECT_EQ(metrics_gpus(JobGpus{JobGpuSource::CommandNotSeen, recorded, {}}, recorded), recorded);
  EXPECT_EQ(metrics_gpus(JobGpus{}, recorded), recorded);
  EXPECT_EQ(metrics_gpus(JobGpus{JobGpuSource::VisibleDevices, {}, {}}, recorded), recorded);
}

TEST(LiveMetrics, TheAnswerIsVersionedJson) {
  EXPECT_EQ(metrics_answer(5, std::vector<int>{0, 2}, {{"gpu_0_memory", 1.5}, {"gpu_total_power", 300}}),
            R"({"schema_version":1,"id":5,"gpus":[0,2],"metrics":{"gpu_0_memory":1.5,"gpu_total_power":300}})");
  EXPECT_EQ(metrics_answer(0, std::vector<int>{}, {}), R"({"schema_version":1,"id":0,"gpus":[],"metrics":{}})");
}

DeviceSample at(double seconds, std::optional<double> watts, std::optional<double> joules = std::nullopt) {
  DeviceSample s;
  s.time.mono_ns = static_cast<std::int64_t>(seconds * 1e9);
  if (watts) s.values.set(DeviceMetric::PowerWatts, *watts);
  if (joules) s.values.set(DeviceMetric::EnergyJoules, *joules);
  return s;
}

TEST(EnergySince, TheCountersRiseThenPowerIntegratedSinceItsLastReading) {
  EnergySince e;
  EXPECT_FALSE(e.joules().has_value());
  e.add(at(0, 100, 5000));  // the first counter reading: zero so far
  EXPECT_DOUBLE_EQ(*e.joules(), 0);
  e.add(at(1, 300));  // a trapezoid: (100 + 300) / 2 W for 1 s
  e.add(at(2, 300));
  EXPECT_DOUBLE_EQ(*e.joules(), 200 + 300);
  e.add(at(30, 300, 5000 + 8000));  // the counter read again replaces the estimate
  EXPECT_DOUBLE_EQ(*e.joules(), 8000);
  e.add(at(31, 100));
  EXPECT_DOUBLE_EQ(*e.joules(), 8000 + 200);
  e.add(at(32, 100, 40));  // a driver reload: the counter starts over, the sum goes on
  EXPECT_DOUBLE_EQ(*e.joules(), 8000);
  e.add(at(33, 100, 140));
  EXPECT_DOUBLE_EQ(*e.joules(), 8100);
}

TEST(EnergySince, PowerAloneAndNoGuessOverLongGaps) {
  EnergySince e;
  e.add(at(0, 50));
  EXPECT_DOUBLE_EQ(*e.joules(), 0);
  e.add(at(0.5, 70));
  EXPECT_DOUBLE_EQ(*e.joules(), 30);
  e.add(at(60.5, 70));  // a minute without a sample: not integrated
  EXPECT_DOUBLE_EQ(*e.joules(), 30);
  e.add(at(61.5, 70));
  EXPECT_DOUBLE_EQ(*e.joules(), 100);
}

TEST(LiveMetrics, FollowsTheJobsProcessesAndCountsEnergyFromTheFirstReading) {
  LiveMetrics live(JobGpuTracker(JobGpus{JobGpuSource::CommandNotSeen, {0, 1}, {}}, {0, 1}), {0, 1});
  live.on_device_sample(sample(0, 90, 4, 200.0, 100.0));
  live.on_device_sample(sample(1, 10, 1, 60.0, 50.0));
  live.on_tick(Timestamp{});
  EXPECT_EQ(live.answer(1).find(R"("gpus":[0,1])") != std::string::npos, true);
  GpuProcess p;
  p.device_index = 1;
  p.in_tree = true;
  live.on_processes({p}, Timestamp{});
  live.on_device_sample(sample(1, 20, 1, 60.0, 80.0));
  live.on_tick(Timestamp{});
  EXPECT_EQ(live.answer(2),
            R"({"schema_version":1,"id":2,"gpus":[1],"metrics":{"gpu_1_memory":1,"gpu_1_utilization":20,)"
            R"("gpu_1_power":60,"gpu_1_energy":30,"gpu_total_memory":1,"gpu_avg_utilization":20,)"
            R"("gpu_total_power":60,"gpu_total_energy":30}})");
}

}  // namespace
}  // namespace gpuwatch
