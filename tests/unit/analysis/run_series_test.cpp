#include "analysis/run_series.h"

#include <vector>

#include <gtest/gtest.h>

#include "core/bytes.h"
#include "run_data_util.h"

namespace gpuwatch {
namespace {

using namespace run_data_test;


RunData two_gpus() {
  RunData d = make_run("x", "000000000001");
  set_device(d, 0, DeviceMetric::GpuUtilPercent, std::vector<double>{20, 40, 60});
  set_device(d, 1, DeviceMetric::GpuUtilPercent, std::vector<double>{40, 60, 100});
  set_device(d, 0, DeviceMetric::MemUsedBytes, std::vector<double>{1 * kGiB, 2 * kGiB, 3 * kGiB});
  set_device(d, 1, DeviceMetric::MemUsedBytes, std::vector<double>{3 * kGiB, 3 * kGiB, 3 * kGiB});
  set_device(d, 0, DeviceMetric::MemTotalBytes, std::vector<double>{8 * kGiB, 8 * kGiB, 8 * kGiB});
  set_device(d, 1, DeviceMetric::MemTotalBytes, std::vector<double>{8 * kGiB, 8 * kGiB, 8 * kGiB});
  // Temperature is a slow metric: read on the first and last tick only.
  set_device(d, 0, DeviceMetric::TempGpuCelsius, std::vector<double>{50, kNaN, 70});
  set_device(d, 1, DeviceMetric::TempGpuCelsius, std::vector<double>{60, kNaN, 65});
  return d;
}

TEST(RunSeries, ElapsedTimeStartsAtTheRunStart) {
  const RunData d = two_gpus();
  EXPECT_EQ(run_origin_mono_ns(d), kStartMono);
  EXPECT_DOUBLE_EQ(run_end_elapsed_s(d), 2.0);
  const ElapsedSeries s = run_metric_series(d, RunMetric::GpuUtilPercent);
  EXPECT_EQ(s.elapsed_ns, (std::vector<std::int64_t>{0, kSec, 2 * kSec}));
}

TEST(RunSeries, GpusAreFoldedAsDocumented) {
  const RunData d = two_gpus();
  EXPECT_EQ(run_metric_series(d, RunMetric::GpuUtilPercent).values, (std::vector<double>{30, 50, 80}));
  EXPECT_EQ(run_metric_series(d, RunMetric::MemUsedBytes).values,
            (std::vector<double>{4 * kGiB, 5 * kGiB, 6 * kGiB}));
  EXPECT_EQ(run_metric_series(d, RunMetric::MemUsedPercent).values, (std::vector<double>{25, 31.25, 37.5}));
  // Max over GPUs, only where a reading exists (no invented middle value).
  const ElapsedSeries temp = run_metric_series(d, RunMetric::TempGpuCelsius);
  EXPECT_EQ(temp.values, (std::vector<double>{60, 70}));
  EXPECT_EQ(temp.elapsed_ns, (std::vector<std::int64_t>{0, 2 * kSec}));
}

TEST(RunSeries, ALostGpuStopsContributing) {
  RunData d = two_gpus();
  DeviceSeries& lost = d.devices[1];  // samples only for the first tick
  lost.mono_ns.resize(1);
  lost.wall_ns.resize(1);
  for (auto& c : lost.values) c.resize(1);
  EXPECT_EQ(run_metric_series(d, RunMetric::MemUsedBytes).values,
            (std::vector<double>{4 * kGiB, 2 * kGiB, 3 * kGiB}));
}

TEST(RunSeries, HostMetricsComeFromTheHostSeries) {
  RunData d = make_run("x", "000000000001");
  d.host.mono_ns = {kStartMono + kSec, kStartMono + 2 * kSec};
  d.host.values[static_cast<std::size_t>(HostMetric::CpuPercent)] = {10, 30};
  d.host.values[static_cast<std::size_t>(HostMetric::TreeRssBytes)] = {kNaN, 1e9};
  EXPECT_EQ(run_metric_series(d, RunMetric::HostCpuPercent).values, (std::vector<double>{10, 30}));
  const ElapsedSeries rss = run_metric_series(d, RunMetric::TreeRssBytes);
  EXPECT_EQ(rss.values, (std::vector<double>{1e9}));
  EXPECT_EQ(rss.elapsed_ns, (std::vector<std::int64_t>{2 * kSec}));
  EXPECT_TRUE(run_metric_series(d, RunMetric::PowerWatts).empty());
}

TEST(RunSeries, ClipKeepsTheClosedWindow) {
  const ElapsedSeries s = run_metric_series(two_gpus(), RunMetric::GpuUtilPercent);
  EXPECT_EQ(clip(s, 1, 2).values, (std::vector<double>{50, 80}));
  EXPECT_EQ(clip(s, 0.5, 1.5).values, (std::vector<double>{50}));
}

// What serve's reduced compare loads: the folded columns and the total that
// memory as a share needs, each once.
TEST(RunSeries, ColumnsAreTheFoldedOnesOnce) {
  EXPECT_EQ(run_metric_device_columns(),
            (std::vector<DeviceMetric>{DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes,
                                       DeviceMetric::MemTotalBytes, DeviceMetric::PowerWatts,
                                       DeviceMetric::TempGpuCelsius, DeviceMetric::TempJunctionCelsius,
                                       DeviceMetric::SmClockMhz}));
  EXPECT_EQ(run_metric_host_columns(), (std::vector<HostMetric>{HostMetric::CpuPercent, HostMetric::TreeRssBytes}));
}

}  // namespace
}  // namespace gpuwatch
