// The Watcher against the fake NVML driver: one validation of intervals and
// GPUs for every command, and samples of the chosen GPUs reach every
// subscriber of the bus.
#include "live/watcher.h"

#include <cstdlib>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "live/live_window.h"

namespace gpuwatch {
namespace {

class WatcherTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("FAKE_NVML_SET", "gpu_count=3;pcie_delay_ms=0;energy_delay_ms=0;", 1); }
  void TearDown() override { unsetenv("FAKE_NVML_SET"); }

  static SystemPaths paths() {
    SystemPaths p;
    p.nvml_library = FAKE_NVML_PATH;
    p.procfs_root = GPUWATCH_FIXTURES "/proc";
    p.sysfs_root = GPUWATCH_FIXTURES "/sysfs/none";  // no AMD GPU, whatever this machine has
    return p;
  }

  static std::string error_of(Watcher& w, const WatchOptions& o) {
    try {
      w.prepare(o);
    } catch (const WatchError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(WatcherTest, RefusesBadIntervalsAndMissingGpusAlike) {
  Watcher w(paths());
  ASSERT_EQ(w.backends().devices.size(), 3u);
  WatchOptions o;
  o.interval_s = 0.001;
  EXPECT_EQ(error_of(w, o), "--interval must be between 0.01 and 86400 seconds, not 0.001");
  o.interval_s = 1;
  o.slow_interval_s = 0.5;
  EXPECT_NE(error_of(w, o).find("slow interval"), std::string::npos);
  o.slow_interval_s = 0;
  o.gpus = {0, 3};
  EXPECT_EQ(error_of(w, o), "--gpus: there is no GPU 3 (this machine has 3 GPUs)");
  EXPECT_THROW(check_gpu_indices({-1}, w.backends()), WatchError);
  EXPECT_NO_THROW(check_gpu_indices({2, 0}, w.backends()));
}

TEST_F(WatcherTest, SamplesTheChosenGpusToEverySubscriber) {
  Watcher w(paths());
  WatchOptions o;
  o.interval_s = 0.01;
  o.gpus = {2, 0};
  o.processes = false;
  w.prepare(o);
  EXPECT_EQ(w.watched_gpus(), (std::vector<int>{0, 2}));  // the machine's order
  ASSERT_EQ(w.devices(w.watched_gpus()).size(), 2u);
  LiveWindow first(10), second(10);
  w.bus().subscribe(first);
  w.bus().subscribe(second);
  w.run(3);
  for (const LiveWindow* window : {&first, &second}) {
    const LiveSnapshot s = window->snapshot();
    EXPECT_EQ(s.ticks, 3u);
    std::set<int> seen;
    for (const LiveDevice& d : s.devices) {
      seen.insert(d.index);
      EXPECT_EQ(d.mono_ns.size(), 3u);
      EXPECT_TRUE(d.latest.values.has(DeviceMetric::GpuUtilPercent));
    }
    EXPECT_EQ(seen, (std::set<int>{0, 2}));
  }
}

TEST_F(WatcherTest, NoGpusMeansTheHostAlone) {
  Watcher w(paths());
  WatchOptions o;
  o.interval_s = 0.01;
  o.no_gpus = true;
  o.processes = false;
  w.prepare(o);
  EXPECT_TRUE(w.watched_gpus().empty());
  LiveWindow window(10);
  w.bus().subscribe(window);
  w.run(2);
  const LiveSnapshot s = window.snapshot();
  EXPECT_EQ(s.ticks, 2u);
  EXPECT_TRUE(s.devices.empty());
}

// top's +/-: a new run at another interval on the backends already open.
TEST_F(WatcherTest, RunsAgainWithOtherOptionsOnTheSameBackends) {
  Watcher w(paths());
  const auto* backend = w.backends().backends.front().backend.get();
  WatchOptions o;
  o.interval_s = 0.01;
  o.processes = false;
  w.prepare(o);
  LiveWindow window(20);
  w.bus().subscribe(window);
  w.run(2);
  o.interval_s = 0.02;
  o.gpus = {1};
  w.prepare(o);
  EXPECT_EQ(w.slow_interval(), std::chrono::seconds(1));
  EXPECT_EQ(w.watched_gpus(), std::vector<int>{1});
  w.run(3);
  EXPECT_EQ(window.snapshot().ticks, 5u);
  EXPECT_EQ(w.backends().backends.front().backend.get(), backend);  // not opened again
}

}  // namespace
}  // namespace gpuwatch
