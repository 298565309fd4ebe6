// The advisor on readings from a real GPU (described in
// tests/fixtures/README.md): NVML sampled every 0.5 s on an H200 while a
// starved data loader and a script that keeps its tensors ran.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "advisor_test_util.h"

namespace gpuwatch {
namespace {

using namespace advisor_test;

const std::filesystem::path kDir = std::filesystem::path(GPUWATCH_FIXTURES) / "advisor";

// mono_ns,gpu_util_percent,mem_used_bytes,mem_total_bytes,host_cpu_percent,tree_cpu_percent
// and beside it "<mono_ns> <kind> <message>" lines.
RunData load(const std::string& name) {
  RunData d;
  d.host.values.assign(kHostMetricCount, {});
  DeviceSeries s;
  s.values.assign(kDeviceMetricCount, {});
  std::ifstream csv(kDir / (name + ".csv"));
  std::string line;
  std::getline(csv, line);  // header
  while (std::getline(csv, line)) {
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream row(line);
    std::int64_t t = 0;
    double util = 0, used = 0, total = 0, host = 0, tree = 0;
    row >> t >> util >> used >> total >> host >> tree;
    s.mono_ns.push_back(t);
    s.wall_ns.push_back(t);
    for (auto& column : s.values) column.push_back(kNaN);
    s.values[static_cast<std::size_t>(DeviceMetric::GpuUtilPercent)].back() = util;
    s.values[static_cast<std::size_t>(DeviceMetric::MemUsedBytes)].back() = used;
    s.info.static_values.set(DeviceMetric::MemTotalBytes, total);
    d.host.mono_ns.push_back(t);
    d.host.wall_ns.push_back(t);
    for (auto& column : d.host.values) column.push_back(kNaN);
    d.host.values[static_cast<std::size_t>(HostMetric::CpuPercent)].back() = host;
    d.host.values[static_cast<std::size_t>(HostMetric::TreeCpuPercent)].back() = tree;
  }
  d.run.start_mono_ns = s.mono_ns.front();
  d.run.start_wall_ns = s.mono_ns.front();
  d.devices.push_back(std::move(s));
  std::ifstream events(kDir / (name + "_events.txt"));
  while (std::getline(events, line)) {
    std::istringstream row(line);
    Event e;
    row >> e.time.mono_ns >> e.kind >> e.message;
    e.time.wall_ns = e.time.mono_ns;
    d.events.push_back(std::move(e));
  }
  return d;
}

// The last `window_s` of the run, as the recorder's advisor will see it;
// events stay whole (they are few).
RunData last(const RunData& run, double window_s) {
  RunData w = run;
  const std::int64_t from = run.devices[0].mono_ns.back() - static_cast<std::int64_t>(window_s * 1e9);
  const auto cut = [&](std::vector<std::int64_t>& times, std::vector<std::vector<double>>& columns,
                       std::vector<std::int64_t>& wall) {
    const auto n = static_cast<std::ptrdiff_t>(std::lower_bound(times.begin(), times.end(), from) - times.begin());
    times.erase(times.begin(), times.begin() + n);
    wall.erase(wall.begin(), wall.begin() + n);
    for (auto& c : columns) c.erase(c.begin(), c.begin() + n);
  };
  cut(w.devices[0].mono_ns, w.devices[0].values, w.devices[0].wall_ns);
  cut(w.host.mono_ns, w.host.values, w.host.wall_ns);
  return w;
}

std::vector<Advisory> advise_at_end(const RunData& run) {
  const RunData window = last(run, 60);
  const double age_s = static_cast<double>(run.devices[0].mono_ns.back() - run.run.start_mono_ns) / 1e9;
  const auto epochs = epoch_peaks(run);
  return advise_on(window, {}, age_s, epochs);
}

TEST(AdvisorReplay, AStarvedLoaderReadingZeroPercentIsInputBound) {
  // 64 samples a batch, 1/64 s of sleep each, num_workers=0, a two-layer
  // CNN: every reading of the last minute is 0 %, the job holds 1.6 GiB
  // (an idle card 0.6 GiB) and its process tree sleeps (2 % of a core).
  const RunData run = load("h200_starved_loader");
  const auto a = advise_at_end(run);
  const Advisory* input = find(a, "util.input_bound");
  ASSERT_TRUE(input) << ::testing::PrintToString(ids(a));
  EXPECT_TRUE(input->underuse);
  EXPECT_DOUBLE_EQ(evidence(*input, "util_max_percent")->value, 0);
  EXPECT_NE(input->summary.find("idle all along"), std::string::npos) << input->summary;
  EXPECT_EQ(find(a, "util.low"), nullptr);
  EXPECT_TRUE(find(a, "memory.batch_too_small"));
  EXPECT_EQ(find(a, "memory.leak"), nullptr);
}

TEST(AdvisorReplay, TensorsKeptInAListAreALeak) {
  // 32 MiB kept every ~0.4 s (about 4.5 GiB a minute), an epoch event every 5 s.
  const RunData run = load("h200_kept_tensors");
  const auto a = advise_at_end(run);
  const Advisory* leak = find(a, "memory.leak");
  ASSERT_TRUE(leak) << ::testing::PrintToString(ids(a));
  EXPECT_GE(evidence(*leak, "epochs_growing")->value, 10);
  // Without the epoch events, the window's trend says it.
  RunData bare = run;
  bare.events.clear();
  const auto b = advise_at_end(bare);
  EXPECT_TRUE(find(b, "memory.growing")) << ::testing::PrintToString(ids(b));
  EXPECT_EQ(find(b, "memory.leak"), nullptr);
}

}  // namespace
}  // namespace gpuwatch
