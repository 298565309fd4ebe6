// Each process's owner (processes.attribution, schema step 8): stored, kept
// across commits, read back; and a store from before the step still opens.
#include <gtest/gtest.h>

#include "../core/attribution_examples.h"
#include "store/attribution_column.h"
#include "store/schema.h"
#include "store/store.h"
#include "store_test_util.h"

namespace gpuwatch {
namespace {

using store_test::kSecond;
using store_test::RawDb;
using StoreAttributionTest = store_test::StoreTest;
using test::slurm_array_task;

constexpr std::int64_t kWall = store_test::kWall0;

GpuProcess gpu_process(std::uint32_t pid, ProcessAttribution a) {
  GpuProcess p;
  p.pid = pid;
  p.used_memory_bytes = 1 << 20;
  p.attribution = std::move(a);
  return p;
}

TEST(AttributionColumn, RoundTripsEveryField) {
  ProcessAttribution a = slurm_array_task();
  a.container = "3f4e1b2c5d6a7e8f";
  a.runtime = "containerd";
  a.pod_uid = "0a1b2c3d-4e5f-6789-abcd-ef0123456789";
  a.qos = "Burstable";
  EXPECT_EQ(attribution_column(a), "1\t1240\t0\t1233\t7\t3f4e1b2c5d6a7e8f\tcontainerd\t"
                                   "0a1b2c3d-4e5f-6789-abcd-ef0123456789\tBurstable\t");
  EXPECT_EQ(attribution_from_column(*attribution_column(a)), a);
  EXPECT_FALSE(attribution_column(ProcessAttribution{}).has_value());
  EXPECT_TRUE(attribution_from_column("2\tfuture").empty());
  EXPECT_TRUE(attribution_from_column("").empty());
  EXPECT_EQ(attribution_from_column("1\t55").job, "55");  // a shorter row: the rest empty
}

TEST_F(StoreAttributionTest, StoredAndKeptAcrossCommits) {
  auto store = Store::open(path_, false);
  RunInfo run = new_run("owned");
  store->begin_run(run, two_devices());
  store->note_process(gpu_process(10, slurm_array_task()), "python3", {kSecond, kWall});
  store->flush();
  // Read again with no owner (the process gone mid-read): the owner stays.
  store->note_process(gpu_process(10, {}), "python3", {2 * kSecond, kWall + kSecond});
  store->note_process(gpu_process(11, {}), "Xorg", {2 * kSecond, kWall + kSecond});
  store->finish_run(run);
  const RunData data = store->load(store->resolve("owned"));
  ASSERT_EQ(data.processes.size(), 2u);
  EXPECT_EQ(data.processes[0].pid, 10u);
  EXPECT_EQ(data.processes[0].attribution, slurm_array_task());
  EXPECT_TRUE(data.processes[1].attribution.empty());
}

TEST_F(StoreAttributionTest, AStoreFromBeforeTheColumnOpensAndReads) {
  {
    auto store = Store::open(path_, false);
    RunInfo run = new_run("old");
    store->begin_run(run, two_devices());
    store->note_process(gpu_process(10, slurm_array_task()), "python3", {kSecond, kWall});
    store->finish_run(run);
  }
  // The file as the build before step 8 left it.
  RawDb raw(path_);
  ASSERT_TRUE(raw.exec("ALTER TABLE processes DROP COLUMN attribution; "
                       "UPDATE meta SET value = '7' WHERE key = 'schema_version'"));
  {
    // A reader of this build reads it as it is: no owners.
    auto reader = Store::open(path_, true);
    const RunData data = reader->load(reader->resolve("old"));
    ASSERT_EQ(data.processes.size(), 1u);
    EXPECT_EQ(data.processes[0].name, "python3");
    EXPECT_TRUE(data.processes[0].attribution.empty());
  }
  // A writer migrates it, and the old rows keep reading.
  auto writer = Store::open(path_, false);
  EXPECT_EQ(writer->schema_version(), current_schema_version());
  EXPECT_EQ(raw.text("SELECT value FROM meta WHERE key = 'schema_version'"), "8");
  EXPECT_TRUE(writer->load(writer->resolve("old")).processes[0].attribution.empty());
}

}  // namespace
}  // namespace gpuwatch
