// The sample cursor (a stored run read a chunk per series at a time) must give
// `export` the very bytes it wrote from the whole run loaded in memory, for
// every format, on a run with what makes merging hard: several GPUs, gaps,
// a GPU lost halfway, a GPU only its chunks name, host rows whose cores
// change, slow reads, events of every kind and an unreadable chunk.
#include <gtest/gtest.h>

#include <string>

#include "render/seed_files.h"
#include "render/tensorboard/tensorboard.h"
#include "store/sample_cursor.h"
#include "store_test_util.h"

namespace gpuwatch {
namespace {

using store_test::kSecond;
using store_test::kWall0;
using store_test::RawDb;

class SampleCursorTest : public store_test::StoreTest {
 protected:
  static std::vector<DeviceInfo> three_devices() {
    std::vector<DeviceInfo> devs = two_devices();
    DeviceInfo third = devs.back();
    third.index = 2;
    third.name = "NVIDIA A100-SXM4-40GB";
    devs.push_back(third);
    return devs;
  }
  // Tick i of GPU `dev`: slow values every 10th tick, with their age.
  static DeviceSample tick(int dev, std::int64_t i) {
    DeviceSample s = device_sample(dev, i);
    s.values.clear(DeviceMetric::TempGpuCelsius);
    if (i % 10 == 3) {
      s.values.set(DeviceMetric::TempGpuCelsius, 50 + static_cast<double>(dev) + static_cast<double>(i % 7));
      s.values.set(DeviceMetric::SlowReadAgeSeconds, 0.012);
    }
    s.values.set(DeviceMetric::MemUsedBytes, 1e9 * static_cast<double>(dev + 1));
    s.values.set(DeviceMetric::MemTotalBytes, 8e10);
    return s;
  }
  static Event event_at(std::int64_t i, std::string kind, std::string message, std::optional<int> dev = {}) {
    return Event{{5 * kSecond + i * kSecond / 10, kWall0 + i * kSecond / 10}, dev, std::move(kind), std::move(message)};
  }

  // 60 s at 10 Hz in one-second commits, then finished (compacted).
  RunInfo record(bool damage) {
    auto store = Store::open(path_, false);
    RunInfo run = new_run("cursor");
    store->begin_run(run, three_devices());
    for (std::int64_t i = 0; i < 600; ++i) {
      const bool gap = i >= 200 && i < 260;  // every GPU silent for 6 s
      for (int dev = 0; dev < 3 && !gap; ++dev) {
        if (dev == 2 && i >= 400) continue;  // lost
        if (dev == 1 && i % 4 == 1) continue;  // GPU 1 skips ticks
        store->append(tick(dev, i));
      }
      if (i % 50 == 7) store->append(tick(5, i));  // a GPU the devices table does not list
      if (i % 5 == 0) store->append(host_sample(i, i < 300 ? 4 : 6));
      if (i == 400) store->mark_lost(2, {5 * kSecond + i * kSecond / 10, kWall0 + i * kSecond / 10});
      if (i % 100 == 50) store->add_event(event_at(i, "step", std::to_string(i / 10)));
      if (i % 100 == 70) store->add_event(event_at(i, "log", "loss=0.5 lr=3e-4"));
      if (i == 123) store->add_event(event_at(i, "annotation", "epoch 1", 1));
      if (i % 10 == 9) store->flush();
      if (damage && i == 309) {
        RawDb raw(path_);
        EXPECT_TRUE(raw.exec("UPDATE sample_chunks SET data = x'01ffff' WHERE id = (SELECT max(id) FROM sample_chunks)"));
        EXPECT_TRUE(raw.exec("UPDATE host_chunks SET data = x'01ffff' WHERE id = (SELECT max(id) - 3 FROM host_chunks)"));
      }
    }
    run.exit_code = 0;
    store->finish_run(run);
    return run;
  }

  // A format's bytes from the run loaded whole, and streamed from the store.
  void expect_same(const RunInfo& run, OutputFormat format, std::optional<int> gpu = {}) {
    auto store = Store::open(path_, true);
    const RunData whole = store->load(run);
    std::string loaded;
    std::string streamed;
    const auto write = [&](const OpenRows& rows, std::string& out) {
      const TextSink sink = [&out](std::string_view s) { out += s; };
      if (format == OutputFormat::tensorboard) {
        write_tensorboard_events(rows, sink);
      } else {
        write_export(rows, format, gpu, sink);
      }
    };
    write(rows_in_memory(whole), loaded);
    write(stored_rows(*store, run), streamed);
    EXPECT_GT(loaded.size(), 1000u);
    EXPECT_EQ(streamed, loaded) << "format " << static_cast<int>(format);
  }
};

TEST_F(SampleCursorTest, EveryFormatStreamsTheBytesOfTheWholeRun) {
  const RunInfo run = record(false);
  for (const OutputFormat f :
       {OutputFormat::json, OutputFormat::multi_json, OutputFormat::jsonl, OutputFormat::csv, OutputFormat::tensorboard}) {
    expect_same(run, f);
  }
  expect_same(run, OutputFormat::json, 1);
}

TEST_F(SampleCursorTest, UnreadableChunksAreLeftOutAndNotedAsWhenLoaded) {
  const RunInfo run = record(true);
  for (const OutputFormat f : {OutputFormat::json, OutputFormat::multi_json, OutputFormat::jsonl}) expect_same(run, f);
  auto store = Store::open(path_, true);
  const RunData whole = store->load(run);
  std::size_t noted = 0;
  for (const Event& e : whole.events) noted += e.kind == "store_corrupt_chunk";
  EXPECT_EQ(noted, 2u);
}

TEST_F(SampleCursorTest, RowsComeInTimeOrderWithTheHostFirstAtATie) {
  const RunInfo run = record(false);
  auto store = Store::open(path_, true);
  SampleCursor cursor(*store, store->resolve(run.id), RowSelection{});
  ASSERT_EQ(cursor.base().devices.size(), 4u);  // 0, 1, 2 and the one only chunks name
  EXPECT_EQ(cursor.base().devices[3].info.index, 5);
  EXPECT_TRUE(cursor.base().devices[2].lost_at_wall_ns.has_value());
  std::int64_t last = 0;
  std::size_t device_rows = 0;
  std::size_t host_rows = 0;
  RunRow row;
  while (cursor.next(row)) {
    const Timestamp t = row.kind == RunRow::Kind::Host ? row.host_sample.time : row.device_sample.time;
    ASSERT_NE(row.kind, RunRow::Kind::Event);
    EXPECT_GE(t.mono_ns, last);
    last = t.mono_ns;
    device_rows += row.kind == RunRow::Kind::Device;
    host_rows += row.kind == RunRow::Kind::Host;
  }
  EXPECT_EQ(host_rows, 120u);
  EXPECT_EQ(device_rows, 540u + 405u + 340u + 12u);
  const auto read = cursor.first_slow_read(1);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->time.mono_ns, tick(1, 3).time.mono_ns);
}

}  // namespace
}  // namespace gpuwatch
