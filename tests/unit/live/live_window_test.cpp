// The live window: bounded history per device, latest values carried forward
// with the time they were read, and consistent snapshots while the sampler
// keeps writing.
#include "live/live_window.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

constexpr std::int64_t kMs = 1'000'000;

DeviceSample util_sample(int device, std::int64_t mono_ns, double util) {
  DeviceSample s;
  s.device_index = device;
  s.time = {mono_ns, mono_ns};
  s.values.set(DeviceMetric::GpuUtilPercent, util);
  return s;
}

TEST(LiveWindow, KeepsTheLastSamplesOldestFirst) {
  LiveWindow window(4);
  for (int i = 1; i <= 10; ++i) {
    window.on_device_sample(util_sample(0, i * kMs, i));
    window.on_tick({i * kMs, i * kMs});
  }
  const LiveSnapshot s = window.snapshot();
  EXPECT_EQ(s.ticks, 10u);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].mono_ns, (std::vector<std::int64_t>{7 * kMs, 8 * kMs, 9 * kMs, 10 * kMs}));
  ASSERT_EQ(s.devices[0].values.size(), 4u);
  EXPECT_EQ(s.devices[0].values[0].get(DeviceMetric::GpuUtilPercent), 7.0);
  EXPECT_EQ(s.devices[0].values[3].get(DeviceMetric::GpuUtilPercent), 10.0);
  // A shorter history is the newest part.
  const LiveSnapshot two = window.snapshot(2);
  EXPECT_EQ(two.devices[0].mono_ns, (std::vector<std::int64_t>{9 * kMs, 10 * kMs}));
  EXPECT_TRUE(window.snapshot(0).devices[0].mono_ns.empty());
  EXPECT_EQ(window.snapshot(0).devices[0].latest.values.get(DeviceMetric::GpuUtilPercent), 10.0);
}

TEST(LiveWindow, ASlowMetricIsCarriedForwardWithItsAge) {
  LiveWindow window(100);
  DeviceSample first = util_sample(0, 1000 * kMs, 50);
  first.values.set(DeviceMetric::TempGpuCelsius, 61);
  first.values.set(DeviceMetric::SlowReadAgeSeconds, 0.25);  // read 250 ms before this tick
  window.on_device_sample(first);
  for (int i = 1; i <= 5; ++i) window.on_device_sample(util_sample(0, (1000 + 100 * i) * kMs, 50 + i));
  const LiveSnapshot s = window.snapshot();
  const LiveDevice& d = s.devices.at(0);
  EXPECT_FALSE(d.values.back().has(DeviceMetric::TempGpuCelsius));  // the history is as sampled
  EXPECT_EQ(d.latest.values.get(DeviceMetric::TempGpuCelsius), 61.0);
  const std::int64_t now = 1500 * kMs;
  EXPECT_DOUBLE_EQ(*d.latest.age_seconds(DeviceMetric::TempGpuCelsius, now), 0.75);
  EXPECT_DOUBLE_EQ(*d.latest.age_seconds(DeviceMetric::GpuUtilPercent, now), 0.0);
  EXPECT_FALSE(d.latest.age_seconds(DeviceMetric::FanPercent, now).has_value());
}

TEST(LiveWindow, HostProcessesAndLostDevices) {
  LiveWindow window(10);
  HostSample host;
  host.time = {5 * kMs, 5 * kMs};
  host.values.set(HostMetric::CpuPercent, 12.5);
  host.core_percent = {10, 15};
  window.on_host_sample(host);
  window.on_device_sample(util_sample(1, 5 * kMs, 1));
  window.on_device_sample(util_sample(0, 5 * kMs, 2));
  GpuProcess p;
  p.pid = 4242;
  window.on_processes({p}, {6 * kMs, 6 * kMs});
  window.on_device_lost(1, {7 * kMs, 7 * kMs});
  window.on_device_lost(1, {8 * kMs, 8 * kMs});  // the first loss is the one that counts
  const LiveSnapshot s = window.snapshot();
  EXPECT_EQ(s.host.latest.values.get(HostMetric::CpuPercent), 12.5);
  EXPECT_EQ(s.host.core_percent, (std::vector<double>{10, 15}));
  EXPECT_EQ(s.host.mono_ns.size(), 1u);
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].index, 1);  // in the order the sampler delivered them
  ASSERT_NE(s.device(1), nullptr);
  ASSERT_TRUE(s.device(1)->lost.has_value());
  EXPECT_EQ(s.device(1)->lost->mono_ns, 7 * kMs);
  EXPECT_FALSE(s.device(0)->lost.has_value());
  EXPECT_EQ(s.device(7), nullptr);
  ASSERT_EQ(s.processes.size(), 1u);
  EXPECT_EQ(s.processes[0].pid, 4242u);
  EXPECT_EQ(s.processes_seen->mono_ns, 6 * kMs);
}

// One writer as fast as it can go, readers snapshotting meanwhile: every
// snapshot must be a state the writer passed through (each tick writes both
// devices with the tick number as value, then the tick).
TEST(LiveWindow, SnapshotsUnderConcurrentWritesAreConsistent) {
  LiveWindow window(50);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int t = 1; t <= 20000; ++t) {
      window.on_device_sample(util_sample(0, t, t));
      window.on_device_sample(util_sample(1, t, t));
      window.on_tick({t, t});
    }
    done = true;
  });
  auto check = [&] {
    int snapshots = 0;
    while (!done || snapshots < 10) {
      const LiveSnapshot s = window.snapshot();
      ++snapshots;
      for (const LiveDevice& d : s.devices) {
        ASSERT_EQ(d.mono_ns.size(), d.values.size());
        ASSERT_LE(d.mono_ns.size(), 50u);
        for (std::size_t i = 1; i < d.mono_ns.size(); ++i) ASSERT_EQ(d.mono_ns[i], d.mono_ns[i - 1] + 1);
        for (std::size_t i = 0; i < d.mono_ns.size(); ++i) {
          ASSERT_EQ(d.values[i].get(DeviceMetric::GpuUtilPercent), static_cast<double>(d.mono_ns[i]));
        }
        if (!d.mono_ns.empty()) {
          ASSERT_EQ(d.latest.values.get(DeviceMetric::GpuUtilPercent), static_cast<double>(d.mono_ns.back()));
          // Device 0 is written before the tick and device 1: never behind them.
          ASSERT_GE(d.mono_ns.back(), static_cast<std::int64_t>(s.ticks));
          ASSERT_LE(d.mono_ns.back(), static_cast<std::int64_t>(s.ticks) + 1);
        }
      }
    }
  };
  std::thread reader(check);
  check();
  reader.join();
  writer.join();
  EXPECT_EQ(window.snapshot().ticks, 20000u);
}

TEST(LiveWindow, KeepsTheMostRecentDeviceEventsOldestFirst) {
  LiveWindow window(4, 3);
  EXPECT_TRUE(window.snapshot().device_events.empty());
  for (int i = 1; i <= 5; ++i) {
    window.on_device_event(Event{{i * kMs, i * kMs}, i % 2, "xid", "XID " + std::to_string(i)});
  }
  const auto events = window.snapshot(0).device_events;  // kept whatever the history asked for
  ASSERT_EQ(events.size(), 3U);
  EXPECT_EQ(events[0].message, "XID 3");
  EXPECT_EQ(events[2].message, "XID 5");
  EXPECT_EQ(events[2].device_index, 1);
  LiveWindow none(4, 0);
  none.on_device_event(Event{{kMs, kMs}, 0, "xid", "XID 1"});
  EXPECT_TRUE(none.snapshot().device_events.empty());
}

}  // namespace
}  // namespace gpuwatch
