// Per-minute rollups in the store: written when a run finishes, built later
// for runs that have none, and a report from them that says what the report
// from the chunks says (DESIGN.md's store paragraph; issue 9 item 26).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/rollup_stats.h"
#include "analysis/run_report.h"
#include "store/stored_columns.h"
#include "store/rollup_codec.h"
#include "store/rollups.h"
#include "store/schema.h"
#include "store/store.h"
#include "store_test_util.h"

namespace gpuwatch {
namespace {

using store_test::kSecond;
using store_test::kWall0;
using store_test::RawDb;
using store_test::StoreTest;

class RollupStoreTest : public StoreTest {
 protected:
  // 2 GPUs, `minutes` at 10 Hz: utilization with stalls (few values),
  // power in mW (many), memory creeping, slow metrics every second, the
  // energy counter every 10 s, a sampling stall of 20 s in the middle.
  RunInfo record(Store& store, double minutes) {
    RunInfo run = new_run("rolled");
    store.begin_run(run, two_devices());
    const auto ticks = static_cast<std::int64_t>(minutes * 600);
    std::uint64_t rng = 3;
    double energy = 1000;
    std::int64_t offset = 0;
    for (std::int64_t i = 0; i < ticks; ++i) {
      offset += i == ticks / 2 ? 20 * kSecond : kSecond / 10 + static_cast<std::int64_t>(i % 7) * 1'000'000;
      for (int d = 0; d < 2; ++d) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        const double noise = static_cast<double>(rng >> 11) / 9007199254740992.0;
        DeviceSample s;
        s.device_index = d;
        s.time = {run.start_mono_ns + offset, kWall0 + offset};
        const double util = i % 30 < 3 + d ? std::round(noise * 3) : std::round(90 + noise * 10);
        const double power = std::round((80 + util * 5.6 + noise * 20) * 1000) / 1000;
        energy += power / 10;
        s.values.set(DeviceMetric::GpuUtilPercent, util);
        s.values.set(DeviceMetric::MemUsedBytes, 40e9 + static_cast<double>(i / 100) * 1048576);
        s.values.set(DeviceMetric::PowerWatts, power);
        if (i % 10 == 0) {
          s.values.set(DeviceMetric::TempGpuCelsius, std::round(40 + util / 4));
          s.values.set(DeviceMetric::ClockEventReasons, power > 560 ? 4 : 0);
          s.values.set(DeviceMetric::PcieLinkGen, util > 50 ? 5 : 1);
          s.values.set(DeviceMetric::PcieLinkWidth, 16);
        }
        if (i % 100 == 0) s.values.set(DeviceMetric::EnergyJoules, std::round(energy * 1000) / 1000);
        store.append(s);
      }
      if (i % 10 == 9) store.flush();
    }
    run.end_wall_ns = kWall0 + offset;
    run.exit_code = 0;
    store.finish_run(run);
    return store.resolve(run.id);
  }

  RunReport report_from_rollups(Store& store, const RunInfo& run) {
    const StoredRollups rollups(path_, run);
    EXPECT_TRUE(rollups.rollups(0).has_value());
    return build_report(load_run_base(store, run), StoredColumns(path_, run), rollups);
  }
};

void expect_same_report(const RunReport& raw, const RunReport& rolled) {
  ASSERT_EQ(raw.devices.size(), rolled.devices.size());
  for (std::size_t d = 0; d < raw.devices.size(); ++d) {
    const DeviceReport& a = raw.devices[d];
    const DeviceReport& b = rolled.devices[d];
    EXPECT_EQ(a.samples, b.samples);
    ASSERT_EQ(a.metrics.size(), b.metrics.size());
    for (std::size_t k = 0; k < a.metrics.size(); ++k) {
      const Summary& x = a.metrics[k].summary;
      const Summary& y = b.metrics[k].summary;
      const std::string what = std::string(info(a.metrics[k].metric).name);
      EXPECT_EQ(a.metrics[k].metric, b.metrics[k].metric);
      EXPECT_EQ(x.count, y.count) << what;
      EXPECT_DOUBLE_EQ(x.span_s, y.span_s) << what;
      EXPECT_EQ(x.min, y.min) << what;
      EXPECT_EQ(x.max, y.max) << what;
      EXPECT_NEAR(x.mean, y.mean, 1e-12 * std::abs(x.mean) + 1e-12) << what;
      EXPECT_NEAR(x.std, y.std, 1e-9 * std::abs(x.mean) + 1e-12) << what;
      EXPECT_NEAR(x.p50, y.p50, kRollupRelativeError * std::abs(x.p50)) << what;
      EXPECT_NEAR(x.p95, y.p95, kRollupRelativeError * std::abs(x.p95)) << what;
    }
    const Summary* util = b.find(DeviceMetric::GpuUtilPercent);
    ASSERT_NE(util, nullptr);  // whole percents: exact
    EXPECT_EQ(util->p50, a.find(DeviceMetric::GpuUtilPercent)->p50);
    EXPECT_EQ(util->p95, a.find(DeviceMetric::GpuUtilPercent)->p95);
    ASSERT_TRUE(a.idle_gaps && b.idle_gaps);
    EXPECT_EQ(a.idle_gaps->count, b.idle_gaps->count);
    EXPECT_EQ(a.energy.counter_joules, b.energy.counter_joules);
  }
  ASSERT_EQ(raw.balance.size(), rolled.balance.size());
  for (std::size_t k = 0; k < raw.balance.size(); ++k) {
    EXPECT_NEAR(raw.balance[k].balance.cv_percent, rolled.balance[k].balance.cv_percent, 1e-6);
  }
}

TEST_F(RollupStoreTest, AFinishedRunHasRollupsAndItsReportMatchesTheChunks) {
  auto store = Store::open(path_, false);
  const RunInfo run = record(*store, 6.5);
  EXPECT_TRUE(has_rollups(path_, run));
  const auto r = StoredRollups(path_, run).rollups(1);
  ASSERT_TRUE(r);
  // 3900 ticks of 100-106 ms and a 20 s stall: 422 s, minutes 0 to 7.
  const std::vector<ColumnRollup>& util = r->metrics[static_cast<std::size_t>(DeviceMetric::GpuUtilPercent)];
  const std::vector<ColumnRollup>& power = r->metrics[static_cast<std::size_t>(DeviceMetric::PowerWatts)];
  ASSERT_EQ(util.size(), 8u);
  ASSERT_FALSE(power.empty());
  EXPECT_TRUE(util[0].exact);
  EXPECT_FALSE(power[0].exact);
  EXPECT_TRUE(r->of(DeviceMetric::FanPercent).empty());

  const RunReport raw = build_report(store->load(run));  // from the chunks, in memory
  expect_same_report(raw, report_from_rollups(*store, run));
}

// Only rollups(): its totals() are RollupSource's, merging whole lists.
class WholeLists final : public RollupSource {
 public:
  explicit WholeLists(const RollupSource& source) : source_(source) {}
  [[nodiscard]] std::optional<DeviceRollups> rollups(int device) const override { return source_.rollups(device); }

 private:
  const RollupSource& source_;
};

TEST_F(RollupStoreTest, TotalsReadAMinuteAtATimeEqualTheWholeListsMerged) {
  auto store = Store::open(path_, false);
  const RunInfo run = record(*store, 6.5);
  const StoredRollups stored(path_, run);
  for (int d = 0; d < 2; ++d) {
    const auto streamed = stored.totals(d);
    const auto whole = WholeLists(stored).totals(d);
    ASSERT_TRUE(streamed && whole);
    ASSERT_TRUE(streamed->detectors && whole->detectors);  // the finish built them
    EXPECT_EQ(*streamed->detectors, *whole->detectors);
    std::uint64_t rows = 0;
    for (const DetectorMinute& m : *streamed->detectors) rows += m.rows;
    EXPECT_EQ(rows, 3900u);
    EXPECT_EQ(streamed->memory, whole->memory);
    ASSERT_EQ(streamed->merged.size(), whole->merged.size());
    for (std::size_t m = 0; m < whole->merged.size(); ++m) {
      ASSERT_EQ(streamed->merged[m].has_value(), whole->merged[m].has_value()) << m;
      if (whole->merged[m]) {
        EXPECT_EQ(*streamed->merged[m], *whole->merged[m]) << m;
      }
    }
  }
}

TEST_F(RollupStoreTest, ARunWithoutRollupsGetsThemOnDemand) {
  // A store written by a build without the rollup step: the same file
  // without its tables, at schema version 1.
  {
    auto old = Store::open(path_, false, schema_migrations().first(1));
    record(*old, 2);
  }
  RawDb raw(path_);
  // (and without the later steps' columns: the finished run's rollups
  // migrated the file to this build's version)
  ASSERT_TRUE(raw.exec("DROP TABLE rollups; DROP TABLE rollup_runs; ALTER TABLE runs DROP COLUMN recorder_start_ticks; "
                       "ALTER TABLE runs DROP COLUMN slow_interval_s; "
                       "ALTER TABLE runs DROP COLUMN job_id; ALTER TABLE runs DROP COLUMN job_source; "
                       "ALTER TABLE runs DROP COLUMN job_rank; ALTER TABLE runs DROP COLUMN job_local_rank; "
                       "ALTER TABLE runs DROP COLUMN job_world_size; ALTER TABLE runs DROP COLUMN job_node_rank; "
                       "ALTER TABLE runs DROP COLUMN job_node_count; ALTER TABLE runs DROP COLUMN recorder_lock; "
                       "ALTER TABLE processes DROP COLUMN max_gpu_percent; "
                       "ALTER TABLE processes DROP COLUMN gpu_percent_sum; "
                       "ALTER TABLE processes DROP COLUMN gpu_percent_reads; "
                       "ALTER TABLE processes DROP COLUMN attribution; "
                       "UPDATE meta SET value = '1' WHERE key = 'schema_version'"));
  EXPECT_EQ(raw.text("SELECT name FROM sqlite_master WHERE name = 'rollups'"), "<none>");
  {
    // A reader of this build reads the old file as it is, from its chunks.
    auto reader = Store::open(path_, true);
    const RunInfo run = reader->resolve("rolled");
    EXPECT_FALSE(has_rollups(path_, run));
    EXPECT_FALSE(StoredRollups(path_, run).rollups(0));
  }
  const RunInfo run = Store::open(path_, true)->resolve("rolled");
  EXPECT_TRUE(build_rollups(path_, run));  // migrates the store, then builds
  EXPECT_EQ(raw.text("SELECT value FROM meta WHERE key = 'schema_version'"), std::to_string(current_schema_version()));
  EXPECT_TRUE(has_rollups(path_, run));
  EXPECT_TRUE(build_rollups(path_, run));  // again: nothing to do
  auto store = Store::open(path_, false);
  expect_same_report(build_report(store->load(run)), report_from_rollups(*store, run));
}

TEST_F(RollupStoreTest, ARecordingRunHasNoneAndADamagedBlobFallsBackToTheChunks) {
  auto store = Store::open(path_, false);
  RunInfo live = new_run("live");
  store->begin_run(live, two_devices());
  EXPECT_FALSE(build_rollups(path_, store->resolve("live")));
  store->finish_run(live);

  const RunInfo run = record(*store, 1.5);
  RawDb raw(path_);
  ASSERT_TRUE(raw.exec("UPDATE rollups SET data = x'01ff' WHERE device_idx = 1"));
  const StoredRollups rollups(path_, run);
  EXPECT_TRUE(rollups.rollups(0));
  EXPECT_FALSE(rollups.rollups(1));
  const RunReport mixed = build_report(load_run_base(*store, run), StoredColumns(path_, run), rollups);
  expect_same_report(build_report(store->load(run)), mixed);

  // A device whose blobs are gone altogether, the run still marked as rolled up.
  ASSERT_TRUE(raw.exec("DELETE FROM rollups WHERE device_idx = 0"));
  EXPECT_FALSE(rollups.rollups(0));
  expect_same_report(build_report(store->load(run)),
                     build_report(load_run_base(*store, run), StoredColumns(path_, run), rollups));
}

TEST(RollupCodec, RoundTripsAndRefusesDamage) {
  std::vector<std::int64_t> t;
  std::vector<double> power;
  std::vector<double> util;
  for (int i = 0; i < 2000; ++i) {
    t.push_back(-3 * kSecond + i * kSecond / 10);
    power.push_back(i % 13 == 0 ? kNaN : 100 + static_cast<double>(i) * 0.125);  // bucketed
    util.push_back(static_cast<double>(i % 101));
  }
  for (const auto& [values, scale] : {std::pair{&power, 1000.0}, std::pair{&util, 100.0}}) {
    const std::vector<ColumnRollup> minutes = rollup_column(t, *values, 0, scale);
    const std::vector<std::uint8_t> blob = encode_rollups(minutes, scale);
    ASSERT_FALSE(minutes.empty());
    EXPECT_EQ(minutes[0].exact, scale == 100.0);
    const auto back = decode_rollups(blob, scale);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, minutes);
    for (std::size_t n = 0; n < blob.size(); ++n) {
      std::string why;
      EXPECT_FALSE(decode_rollups(std::span(blob).first(n), scale, &why)) << n;
      EXPECT_FALSE(why.empty());
    }
    std::vector<std::uint8_t> longer = blob;
    longer.push_back(0);
    EXPECT_FALSE(decode_rollups(longer, scale));
  }
}

}  // namespace
}  // namespace gpuwatch
