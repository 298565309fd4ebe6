#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "import/import.h"
#include "store/store.h"
#include "store_test_util.h"

namespace gpuwatch {
namespace {

using store_test::RawDb;
using store_test::StoreTest;
namespace fs = std::filesystem;

RunData imported(const std::string& fixture) {
  return import_file(std::string(GPUWATCH_FIXTURES) + "/import/" + fixture).data;
}

TEST_F(StoreTest, ImportedRunReadsBackAsStored) {
  RunData data = imported("gpuwatch_h100.jsonl");
  data.processes.push_back(
      {1, 4242, "python", data.run.start_wall_ns, data.run.start_wall_ns + 1, 1 << 30, 87.5, 150.0, 2, {}});
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
  ASSERT_EQ(back.events.size(), 3u);  // the wrapper's epoch and phase, and the mark
  EXPECT_EQ(back.events[2].kind, "mark");
  EXPECT_EQ(back.events[2].message, data.events[2].message);
  EXPECT_EQ(back.events[2].time.mono_ns, 10'500'000'000);
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

// Issue 22 item 12: `gpuwatch import` streams a run in, a chunk per series
// at a time; until commit() nothing of it is there, and without commit()
// nothing stays.
TEST_F(StoreTest, StreamedImportIsTheSameRunAndAllOrNothing) {
  RunData data = imported("gpuwatch_h100.jsonl");
  const auto stream = [&](Store& store, RunInfo& run) {
    std::vector<DeviceInfo> infos;
    for (const DeviceSeries& s : data.devices) infos.push_back(s.info);
    auto import = store.begin_import(run, infos);
    for (const DeviceSeries& s : data.devices) {
      for (std::size_t i = 0; i < s.mono_ns.size(); ++i) import->append(device_sample_at(s, i));
    }
    for (std::size_t i = 0; i < data.host.mono_ns.size(); ++i) import->append(host_sample_at(data.host, i));
    return import;
  };
  auto store = Store::open(path_, false);
  {
    RunInfo run = data.run;
    auto abandoned = stream(*store, run);
  }
  EXPECT_TRUE(store->list_runs().empty());
  EXPECT_EQ(RawDb(path_).text("SELECT count(*) FROM sample_chunks"), "0");

  RunInfo run = data.run;
  auto import = stream(*store, run);
  const std::string id = import->commit();
  import->build_rollups();
  import.reset();
  EXPECT_EQ(id, run.id);
  const RunData back = store->load(store->resolve(id));
  ASSERT_EQ(back.devices.size(), data.devices.size());
  for (std::size_t d = 0; d < back.devices.size(); ++d) {
    EXPECT_EQ(back.devices[d].mono_ns, data.devices[d].mono_ns);
    EXPECT_EQ(back.devices[d].wall_ns, data.devices[d].wall_ns);
  }
  EXPECT_EQ(back.host.mono_ns, data.host.mono_ns);
}

// `gpuwatch import` (spilled to a temporary file, streamed into the store)
// stores the run that the same file gives in memory, rows out of order
// included, and leaves no temporary file behind.
TEST_F(StoreTest, AFileStreamedIntoTheStoreIsTheRunReadInMemory) {
  const fs::path file = dir_ / "shuffled.jsonl";
  std::ofstream(file) << "{\"type\":\"device\",\"wall_ns\":1736937000300000000,\"elapsed_s\":0.3,\"gpu_index\":0,"
                         "\"power_watts\":3,\"gpu_name\":\"NVIDIA H100\"}\n"
                         "{\"type\":\"host\",\"wall_ns\":1736937000300000000,\"elapsed_s\":0.3,\"cpu_percent\":5,"
                         "\"core_percent\":[1,2]}\n"
                         "{\"type\":\"device\",\"wall_ns\":1736937000100000000,\"elapsed_s\":0.1,\"gpu_index\":0,"
                         "\"power_watts\":1}\n"
                         "{\"type\":\"host\",\"wall_ns\":1736937000100000000,\"elapsed_s\":0.1,\"cpu_percent\":4}\n"
                         "{\"type\":\"device\",\"wall_ns\":1736937000200000000,\"elapsed_s\":0.2,\"gpu_index\":1,"
                         "\"power_watts\":12}\n"
                         "{\"type\":\"process\",\"gpu_index\":0,\"pid\":42,\"name\":\"python\","
                         "\"first_seen_wall_ns\":1736937000100000000,\"last_seen_wall_ns\":1736937000300000000}\n";
  const ImportResult in_memory = import_file(file);
  fs::create_directories(path_.parent_path());
  const ImportResult streamed = import_file_to_store(file, path_, "", dir_);
  EXPECT_EQ(streamed.samples_read, in_memory.samples_read);
  EXPECT_EQ(streamed.warnings, in_memory.warnings);
  auto store = Store::open(path_, true);
  const RunInfo run = store->resolve(streamed.data.run.id);
  EXPECT_EQ(run.name, "shuffled");
  EXPECT_EQ(run.start_wall_ns, in_memory.data.run.start_wall_ns);
  EXPECT_EQ(run.end_wall_ns, in_memory.data.run.end_wall_ns);
  EXPECT_DOUBLE_EQ(run.interval_s, in_memory.data.run.interval_s);
  const RunData back = store->load(run);
  ASSERT_EQ(back.devices.size(), 2u);
  for (std::size_t d = 0; d < 2; ++d) {
    EXPECT_EQ(back.devices[d].mono_ns, in_memory.data.devices[d].mono_ns);
    EXPECT_EQ(back.devices[d].info.supported, in_memory.data.devices[d].info.supported);
  }
  EXPECT_EQ(back.devices[0].info.name, "NVIDIA H100");
  EXPECT_EQ(back.devices[0].values[static_cast<std::size_t>(DeviceMetric::PowerWatts)],
            (std::vector<double>{1, 3}));
  EXPECT_EQ(back.host.mono_ns, (std::vector<std::int64_t>{100'000'000, 300'000'000}));
  ASSERT_EQ(back.processes.size(), 1u);
  EXPECT_EQ(back.processes[0].name, "python");
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().rfind("gpuwatch-import", 0), std::string::npos) << entry.path();
  }
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
