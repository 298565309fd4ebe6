#include <cmath>

#include <gtest/gtest.h>

#include "import/import.h"
#include "store/store.h"
#include "store_test_util.h"

namespace gpuwatch {
namespace {

using store_test::RawDb;
using store_test::StoreTest;

RunData imported(const std::string& fixture) {
  return import_file(std::string(GPUWATCH_FIXTURES) + "/import/" + fixture).data;
}

TEST_F(StoreTest, ImportedRunReadsBackAsStored) {
  RunData data = imported("gpuwatch_h100.jsonl");
  data.processes.push_back(
      {1, 4242, "python", data.run.start_wall_ns, data.run.start_wall_ns + 1, 1 << 30, 87.5, 150.0, 2});
  data.devices[1].lost_at_wall_ns = data.run.start_wall_ns + 500'000'000;
  std::string id;
  {
    auto store = Store::open(path_, false);
    id = store->import_run(data);
    EXPECT_EQ(id, data.run.id);
    EXPECT_EQ(id.size(), 12u);
  }
  auto store = Store::open(path_, true);
  const RunInfo run = store->resolve(data.run.name);
  EXPECT_EQ(run.id, id);
  EXPECT_EQ(run.status, RunStatus::Finished);
  EXPECT_EQ(run.end_reason, "imported");
  EXPECT_EQ(run.end_wall_ns, data.run.end_wall_ns);
  EXPECT_EQ(run.start_wall_ns, data.run.start_wall_ns);
  EXPECT_DOUBLE_EQ(run.interval_s, data.run.interval_s);
  EXPECT_FALSE(run.version.empty());

  const RunData back = store->load(run);
  ASSERT_EQ(back.devices.size(), 2u);
  for (std::size_t d = 0; d < 2; ++d) {
    const DeviceSeries& in = back.devices[d];
    const DeviceSeries& out = data.devices[d];
    EXPECT_EQ(in.info.name, out.info.name);
    EXPECT_EQ(in.info.vendor, "NVIDIA");
    EXPECT_EQ(in.info.backend, "import");
    EXPECT_EQ(in.info.supported, out.info.supported);
    EXPECT_EQ(in.info.static_values.get(DeviceMetric::MemTotalBytes), 85520809984.0);
    EXPECT_EQ(in.mono_ns, out.mono_ns);
    EXPECT_EQ(in.wall_ns, out.wall_ns);
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      for (std::size_t i = 0; i < in.mono_ns.size(); ++i) {
        if (std::isnan(out.values[m][i])) {
          EXPECT_TRUE(std::isnan(in.values[m][i]));
        } else {
          // Stored in fixed point at the metric's scale.
          EXPECT_NEAR(in.values[m][i], out.values[m][i], 0.5 / kDeviceMetrics[m].scale) << kDeviceMetrics[m].name;
        }
      }
    }
  }
  EXPECT_EQ(back.devices[1].lost_at_wall_ns, data.devices[1].lost_at_wall_ns);
  EXPECT_EQ(back.host.mono_ns, data.host.mono_ns);
  ASSERT_EQ(back.processes.size(), 1u);
  EXPECT_EQ(back.processes[0].name, "python");
  EXPECT_EQ(back.processes[0].max_gpu_percent, 87.5);
  EXPECT_EQ(back.processes[0].mean_gpu_percent(), 75.0);
}

TEST_F(StoreTest, ImportedAnnotationsAreEvents) {
  RunData data = imported("seed_wrapper_w7900.json");
  auto store = Store::open(path_, false);
  store->import_run(data);
  const RunData back = store->load(store->resolve("last"));
  ASSERT_EQ(back.events.size(), 1u);
  EXPECT_EQ(back.events[0].kind, "mark");
  EXPECT_EQ(back.events[0].message, data.events[0].message);
  EXPECT_EQ(back.events[0].time.mono_ns, 10'500'000'000);
}

TEST_F(StoreTest, FailedImportLeavesNothingBehind) {
  auto store = Store::open(path_, false);
  RunData first = imported("legacy_a10g.json");
  const std::string id = store->import_run(first);
  RunData second = imported("gputop_w7900.json");
  second.run.id = id;  // taken: the whole import fails
  EXPECT_THROW(store->import_run(second), StoreError);
  EXPECT_EQ(store->list_runs().size(), 1u);
  RawDb raw(path_);
  EXPECT_EQ(raw.text("SELECT count(*) FROM devices"), "1");
  EXPECT_EQ(raw.text("SELECT count(DISTINCT run_id) FROM sample_chunks"), "1");
}

TEST_F(StoreTest, ImportWhileRecordingKeepsBothRuns) {
  auto store = Store::open(path_, false);
  RunInfo live = new_run("live");
  store->begin_run(live, two_devices());
  store->append(device_sample(0, 1));
  RunData data = imported("legacy_a10g.json");
  store->import_run(data);
  store->append(device_sample(0, 2));
  store->finish_run(live);
  EXPECT_EQ(store->load(store->resolve("live")).devices.at(0).mono_ns.size(), 2u);
  EXPECT_EQ(store->load(store->resolve("legacy_a10g")).devices.at(0).mono_ns.size(), 4u);
}

}  // namespace
}  // namespace gpuwatch
