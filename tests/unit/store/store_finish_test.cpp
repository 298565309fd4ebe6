// The end of a recording (issue 25): rollups built streaming, a chunk at a
// time, equal rollup_column over the whole columns; compaction pages through
// a series' chunks; a new store gives the pages compaction frees back, an
// older one keeps its mode until vacuumed.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "store/rollup_codec.h"
#include "store/rollups.h"
#include "store/store.h"
#include "store/store_delete.h"
#include "store_test_util.h"

namespace gpuwatch {
namespace {

using namespace store_test;  // NOLINT(google-build-using-namespace): the fixture and its helpers

class StoreFinishTest : public StoreTest {
 protected:
  // 2 GPUs at 10 Hz with jitter for `ticks`: utilization (few values), power
  // (many), memory with NaN stretches, slow metrics every second, a 5-minute
  // pause at `pause_at`; one commit per `per_flush` ticks.
  RunInfo record(Store& store, std::int64_t ticks, std::int64_t per_flush, std::int64_t pause_at = -1) {
    RunInfo run = new_run("finish");
    store.begin_run(run, two_devices());
    std::uint64_t rng = 11;
    std::int64_t offset = 0;
    for (std::int64_t i = 0; i < ticks; ++i) {
      rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
      offset += i == pause_at ? 300 * kSecond : kSecond / 10 + static_cast<std::int64_t>(rng >> 50);
      for (int d = 0; d < 2; ++d) {
        DeviceSample s;
        s.device_index = d;
        s.time = {run.start_mono_ns + offset, kWall0 + offset};
        const double noise = static_cast<double>((rng >> 20) % 1000) / 1000;
        s.values.set(DeviceMetric::GpuUtilPercent, std::round(noise * 100));
        s.values.set(DeviceMetric::PowerWatts, std::round((100 + noise * 500) * 1000) / 1000 + d);
        if ((i / 300) % 4 != 1) s.values.set(DeviceMetric::MemUsedBytes, 40e9 + static_cast<double>(i) * 4096);
        if (i % 10 == d) s.values.set(DeviceMetric::TempGpuCelsius, std::round(40 + noise * 30));
        store.append(s);
      }
      if (i % per_flush == per_flush - 1) store.flush();
    }
    run.end_wall_ns = kWall0 + offset;
    run.exit_code = 0;
    store.finish_run(run);
    return store.resolve(run.id);
  }
};

TEST_F(StoreFinishTest, StreamedRollupsEqualThoseOfTheWholeColumns) {
  auto store = Store::open(path_, false);
  const RunInfo run = record(*store, 12'000, 10, 6'000);  // 25 minutes and a pause; 1200 chunks a GPU
  ASSERT_TRUE(has_rollups(path_, run));
  const RunData data = store->load(run);
  RawDb raw(path_);
  int compared = 0;
  for (const DeviceSeries& s : data.devices) {
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      if (kDeviceMetrics[m].cadence == Cadence::Static) continue;
      const double scale = kDeviceMetrics[m].scale;
      const std::vector<ColumnRollup> whole = rollup_column(s.mono_ns, s.values[m], run.start_mono_ns, scale);
      const auto stored = StoredRollups(path_, run).rollups(s.info.index);
      ASSERT_TRUE(stored);
      EXPECT_EQ(stored->metrics[m], whole) << kDeviceMetrics[m].name;
      // Byte for byte the blob the whole columns give.
      if (!whole.empty()) {
        const std::string hex = raw.text(
            "SELECT hex(data) FROM rollups WHERE run_id = " + std::to_string(run.row_id) +
            " AND device_idx = " + std::to_string(s.info.index) + " AND metric = '" +
            std::string(kDeviceMetrics[m].name) + "'");
        std::string expected;
        for (const std::uint8_t b : encode_rollups(whole, scale)) {
          constexpr char kHex[] = "0123456789ABCDEF";
          expected += kHex[b >> 4];
          expected += kHex[b & 15];
        }
        EXPECT_EQ(hex, expected) << kDeviceMetrics[m].name;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 8);  // 4 metrics with values on each of 2 GPUs
}

TEST_F(StoreFinishTest, VisitingADevicesChunksGivesOneChunkAtATime) {
  auto store = Store::open(path_, false);
  RunInfo run = new_run("visit");
  store->begin_run(run, two_devices());
  for (std::int64_t i = 0; i < 50; ++i) {
    store->append(device_sample(1, i));
    if (i % 10 == 9) store->flush();
  }
  run = store->resolve(run.id);
  std::vector<std::int64_t> times;
  int pieces = 0;
  EXPECT_TRUE(store->visit_device_chunks(run, 1, [&](const DeviceSeries& piece) {
    ++pieces;
    EXPECT_EQ(piece.mono_ns.size(), 10u);
    EXPECT_EQ(piece.values[static_cast<std::size_t>(DeviceMetric::PowerWatts)].size(), 10u);
    times.insert(times.end(), piece.mono_ns.begin(), piece.mono_ns.end());
  }));
  EXPECT_EQ(pieces, 5);
  EXPECT_EQ(times, store->load(run).devices.at(1).mono_ns);
  RawDb raw(path_);
  ASSERT_TRUE(raw.exec("UPDATE sample_chunks SET data = x'01ffff' WHERE id = (SELECT min(id) + 2 FROM sample_chunks)"));
  pieces = 0;
  EXPECT_FALSE(store->visit_device_chunks(run, 1, [&](const DeviceSeries&) { ++pieces; }));
  EXPECT_EQ(pieces, 2);
  store->finish_run(run);
}

// More one-second chunks than compaction reads ids at a time (4096).
TEST_F(StoreFinishTest, CompactionPagesThroughManyChunksAndKeepsEverySample) {
  auto store = Store::open(path_, false);
  const RunInfo run = record(*store, 9'000, 2);  // 4500 chunks a GPU
  RawDb raw(path_);
  // 9000 rows a GPU: one merged chunk of 8192 rows and one of the rest.
  EXPECT_EQ(raw.text("SELECT count(*) FROM sample_chunks WHERE device_idx = 0"), "2");
  EXPECT_EQ(raw.text("SELECT sum(count) FROM sample_chunks WHERE device_idx = 0"), "9000");
  const RunData data = store->load(run);
  ASSERT_EQ(data.devices.at(0).mono_ns.size(), 9000u);
  for (std::size_t i = 1; i < 9000; ++i) ASSERT_LT(data.devices[0].mono_ns[i - 1], data.devices[0].mono_ns[i]);
}

TEST_F(StoreFinishTest, ANewStoreGivesTheFreedPagesBack) {
  auto store = Store::open(path_, false);
  record(*store, 6'000, 10);
  RawDb raw(path_);
  EXPECT_EQ(raw.text("PRAGMA auto_vacuum"), "2");  // incremental
  EXPECT_EQ(raw.text("PRAGMA freelist_count"), "0");
}

TEST_F(StoreFinishTest, AnOlderStoreKeepsItsFreePagesUntilVacuumed) {
  {
    // A file made before issue 25: no auto-vacuum, fixed by its first page.
    sqlite3* old = nullptr;
    fs::create_directories(path_.parent_path());
    ASSERT_EQ(sqlite3_open(path_.c_str(), &old), SQLITE_OK);
    const char* sql = "PRAGMA auto_vacuum = NONE; PRAGMA journal_mode = WAL; CREATE TABLE x (a); DROP TABLE x";
    EXPECT_EQ(sqlite3_exec(old, sql, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(old);
  }
  auto store = Store::open(path_, false);
  record(*store, 6'000, 10);
  RawDb raw(path_);
  EXPECT_EQ(raw.text("PRAGMA auto_vacuum"), "0");
  EXPECT_NE(raw.text("PRAGMA freelist_count"), "0");  // reused by the next runs
  store.reset();
  vacuum_store(path_);  // `gpuwatch rm --vacuum`: and from now on it gives them back itself
  RawDb vacuumed(path_);
  EXPECT_EQ(vacuumed.text("PRAGMA auto_vacuum"), "2");
  EXPECT_EQ(vacuumed.text("PRAGMA freelist_count"), "0");
}

}  // namespace
}  // namespace gpuwatch
