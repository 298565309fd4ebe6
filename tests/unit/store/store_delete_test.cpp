#include <unistd.h>

#include "store/run_filter.h"
#include "store_test_util.h"

namespace gpuwatch::store_test {
namespace {

class StoreDeleteTest : public StoreTest {
 protected:
  // A finished run with samples, processes and events in every table.
  std::string finished_run(Store& store, const std::string& name) {
    RunInfo run = new_run(name);
    store.begin_run(run, two_devices());
    for (int i = 0; i < 5; ++i) {
      store.append(device_sample(0, i));
      store.append(device_sample(1, i));
      store.append(host_sample(i, 2));
    }
    GpuProcess p;
    p.device_index = 0;
    p.pid = 4242;
    store.note_process(p, "python", {5 * kSecond, kWall0});
    Event e;
    e.kind = "epoch";
    e.time = {5 * kSecond, kWall0};
    store.add_event(e);
    run.exit_code = 0;
    store.finish_run(run);
    return run.id;
  }
};

TEST_F(StoreDeleteTest, DeletesARunWithEverythingStoredForIt) {
  auto store = Store::open(path_, false);
  const std::string gone = finished_run(*store, "a");
  const std::string kept = finished_run(*store, "b");
  RawDb raw(path_);
  for (const char* table : {"devices", "sample_chunks", "host_chunks", "processes", "events"}) {
    EXPECT_NE(raw.text(std::string("SELECT COUNT(*) FROM ") + table), "0") << table;
  }
  EXPECT_EQ(store->delete_runs({store->resolve(gone)}, false), 1u);
  const auto runs = store->list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, kept);
  const std::string others = "(SELECT id FROM runs WHERE public_id = '" + kept + "')";
  for (const char* table : {"devices", "sample_chunks", "host_chunks", "processes", "events"}) {
    EXPECT_EQ(raw.text(std::string("SELECT COUNT(*) FROM ") + table + " WHERE run_id <> " + others), "0") << table;
    EXPECT_NE(raw.text(std::string("SELECT COUNT(*) FROM ") + table), "0") << table;
  }
  EXPECT_EQ(store->load(runs[0]).devices.at(0).mono_ns.size(), 5u);  // the other run is whole
  EXPECT_EQ(store->delete_runs({RunInfo{.id = gone}}, false), 0u);  // already gone: nothing, no error
  store->vacuum();
  EXPECT_EQ(store->list_runs().size(), 1u);
}

TEST_F(StoreDeleteTest, RefusesALiveRunUnlessForced) {
  auto writer = Store::open(path_, false);
  RunInfo live = new_run("live");
  writer->begin_run(live, two_devices());  // recorder: this process, alive
  writer->flush();
  auto other = Store::open(path_, false);
  const std::string done = finished_run(*other, "done");
  const RunInfo live_seen = other->resolve(live.id);
  ASSERT_EQ(live_seen.status, RunStatus::Recording);
  // All or nothing: the finished run listed with it stays too.
  EXPECT_THROW(other->delete_runs({other->resolve(done), live_seen}, false), StoreError);
  EXPECT_EQ(other->list_runs().size(), 2u);
  EXPECT_THROW(writer->delete_runs({live_seen}, true), StoreError);  // never the run this Store records
  EXPECT_EQ(other->delete_runs({live_seen}, true), 1u);
  EXPECT_EQ(other->list_runs().size(), 1u);
}

TEST_F(StoreDeleteTest, ReadOnlyStoreRefuses) {
  { auto store = Store::open(path_, false); finished_run(*store, "a"); }
  auto reader = Store::open(path_, true);
  EXPECT_THROW(reader->delete_runs(reader->list_runs(), false), StoreError);
}

}  // namespace
}  // namespace gpuwatch::store_test
