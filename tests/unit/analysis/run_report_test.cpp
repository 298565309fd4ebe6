#include "analysis/run_report.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/bytes.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

// One GPU sampled every 0.1 s for `seconds`, utilization and memory from the
// given functions of elapsed seconds.
template <typename Util, typename Memory>
RunData one_gpu(double seconds, Util util, Memory memory) {
  RunData data;
  data.run.start_mono_ns = 0;
  data.run.start_wall_ns = 1'700'000'000 * kSec;
  DeviceSeries s;
  s.info.index = 0;
  s.info.static_values.set(DeviceMetric::MemTotalBytes, 80 * kGiB);
  s.values.assign(kDeviceMetricCount, {});
  const auto n = static_cast<std::size_t>(seconds * 10);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / 10;
    s.mono_ns.push_back(static_cast<std::int64_t>(i) * kSec / 10);
    s.wall_ns.push_back(data.run.start_wall_ns + s.mono_ns.back());
    for (auto& column : s.values) column.push_back(kNaN);
    s.values[static_cast<std::size_t>(DeviceMetric::GpuUtilPercent)].back() = util(t);
    s.values[static_cast<std::size_t>(DeviceMetric::MemUsedBytes)].back() = memory(t);
  }
  data.devices.push_back(std::move(s));
  return data;
}

TEST(RunReport, LoadingAModelIsNotALeakAndExitingIsNotADrop) {
  // Like a real job: a stray busy reading at the first tick (the driver's
  // window still held the previous job), 4 s with no memory while Python
  // starts, 12 GiB taken, 60 s of work, then everything freed at exit.
  const RunData data = one_gpu(
      70, [](double t) { return t < 0.05 || (t > 5 && t < 65) ? 99.0 : 0.0; },
      [](double t) { return t < 4 || t > 66 ? 0.0 : 12 * kGiB; });
  const RunReport r = build_report(data);
  ASSERT_EQ(r.devices.size(), 1u);
  ASSERT_TRUE(r.devices[0].memory);
  EXPECT_FALSE(r.devices[0].memory->leak_suspected);
  EXPECT_NEAR(r.devices[0].memory->growth_bytes, 0, 1);
  EXPECT_TRUE(r.devices[0].memory->drops.empty());
}

TEST(RunReport, AClosingBusyReadingAfterTheExitIsNotADrop) {
  // The last tick reads "busy" (the driver's window still holds the job)
  // although the process has exited and freed its memory.
  const RunData data = one_gpu(
      40, [](double t) { return t < 2 || t > 39.85 ? 0.0 : 99.0; }, [](double t) { return t > 39.75 ? 0.0 : 9 * kGiB; });
  const RunReport r = build_report(data);
  ASSERT_TRUE(r.devices[0].memory);
  EXPECT_TRUE(r.devices[0].memory->drops.empty());
}

TEST(RunReport, ADropToALowLevelWhileStillWorkingIsReported) {
  // 12 GiB for 60 % of the run, then 2 GiB while still busy: a real drop,
  // even though the low level is under half the median.
  const RunData data = one_gpu(
      50, [](double) { return 90.0; }, [](double t) { return t < 30 ? 12 * kGiB : 2 * kGiB; });
  const RunReport r = build_report(data);
  ASSERT_TRUE(r.devices[0].memory);
  ASSERT_EQ(r.devices[0].memory->drops.size(), 1u);
  EXPECT_EQ(r.devices[0].memory->drops[0].to_bytes, 2 * kGiB);
}

TEST(RunReport, ASteadyLeakFromTheStartIsStillFound) {
  // 2 GiB at the start, +8 GiB over the run: half the median level is
  // reached at once, so almost the whole run is judged.
  const RunData data = one_gpu(
      100, [](double) { return 90.0; }, [](double t) { return 2 * kGiB + t / 100 * 8 * kGiB; });
  const RunReport r = build_report(data);
  ASSERT_TRUE(r.devices[0].memory);
  EXPECT_TRUE(r.devices[0].memory->leak_suspected);
  EXPECT_NEAR(r.devices[0].memory->slope_bytes_per_hour, 8 * kGiB * 36, 8 * kGiB * 36 * 1e-6);
}

TEST(RunReport, ASuddenDropWhileWorkingIsReported) {
  const RunData data = one_gpu(
      60, [](double) { return 90.0; }, [](double t) { return t < 30 ? 13 * kGiB : 9 * kGiB; });
  const RunReport r = build_report(data);
  ASSERT_TRUE(r.devices[0].memory);
  ASSERT_EQ(r.devices[0].memory->drops.size(), 1u);
  EXPECT_EQ(r.devices[0].memory->drops[0].from_bytes, 13 * kGiB);
  EXPECT_EQ(r.devices[0].memory->drops[0].to_bytes, 9 * kGiB);
}

}  // namespace
}  // namespace gpuwatch

namespace gpuwatch {
namespace {

TEST(RunReport, BalanceAndAllGpusCoverTheJobsGpusOnly) {
  // GPUs 0 and 1 run the job; GPU 2 is another job's, idle.
  RunData data = one_gpu(20, [](double) { return 90.0; }, [](double) { return 10 * kGiB; });
  for (int index : {1, 2}) {
    DeviceSeries s = data.devices.front();
    s.info.index = index;
    if (index == 2) {
      for (double& v : s.values[static_cast<std::size_t>(DeviceMetric::GpuUtilPercent)]) v = 0;
    }
    data.devices.push_back(std::move(s));
  }
  const auto util_balance = [](const RunReport& r) {
    for (const BalanceReport& b : r.balance) {
      if (b.metric == DeviceMetric::GpuUtilPercent) return b.device_indices.size();
    }
    return std::size_t{0};
  };
  RunReport all = build_report(data);
  EXPECT_FALSE(all.job_gpus.known());
  EXPECT_EQ(util_balance(all), 3u);  // a run that does not say: every GPU, as before
  data.events.push_back({{kSec, data.run.start_wall_ns + kSec}, std::nullopt, "job_gpus",
                         "source=process_tree gpus=0,1"});
  const RunReport job = build_report(data);
  EXPECT_EQ(job.job_gpus.source, JobGpuSource::ProcessTree);
  EXPECT_EQ(util_balance(job), 2u);
  ASSERT_FALSE(job.all_gpus.empty());
  EXPECT_EQ(job.all_gpus.front().pooled.gpus, 2u);
  EXPECT_EQ(job.devices.size(), 3u);  // every recorded GPU is still reported
}

}  // namespace
}  // namespace gpuwatch
