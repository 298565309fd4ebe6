#include <unistd.h>

#include "store/store_delete.h"
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
  EXPECT_EQ(delete_runs(path_, {gone}, false), 1u);
  const auto runs = store->list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, kept);
  const std::string others = "(SELECT id FROM runs WHERE public_id = '" + kept + "')";
  for (const char* table : {"devices", "sample_chunks", "host_chunks", "processes", "events"}) {
    EXPECT_EQ(raw.text(std::string("SELECT COUNT(*) FROM ") + table + " WHERE run_id <> " + others), "0") << table;
    EXPECT_NE(raw.text(std::string("SELECT COUNT(*) FROM ") + table), "0") << table;
  }
  EXPECT_EQ(store->load(runs[0]).devices.at(0).mono_ns.size(), 5u);  // the other run is whole
  EXPECT_EQ(delete_runs(path_, {gone}, false), 0u);  // already gone: nothing, no error
  vacuum_store(path_);
  EXPECT_EQ(store->list_runs().size(), 1u);
}

TEST_F(StoreDeleteTest, RefusesALiveRunUnlessForced) {
  auto writer = Store::open(path_, false);
  RunInfo live = new_run("live");
  writer->begin_run(live, two_devices());  // recorder: this process, alive
  writer->flush();
  auto other = Store::open(path_, false);
  const std::string done = finished_run(*other, "done");
  ASSERT_EQ(other->resolve(live.id).status, RunStatus::Recording);
  // All or nothing: the finished run named with it stays too.
  try {
    delete_runs(path_, {done, live.id}, false);
    ADD_FAILURE() << "a live run was deleted";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("still being recorded"), std::string::npos) << e.what();
  }
  EXPECT_EQ(other->list_runs().size(), 2u);
  EXPECT_EQ(delete_runs(path_, {live.id}, true), 1u);
  EXPECT_EQ(other->list_runs().size(), 1u);
}

TEST_F(StoreDeleteTest, DeadRecordersRunIsNotLive) {
  {
    auto writer = Store::open(path_, false);
    RunInfo run = new_run("crashed");
    run.recorder_pid = 0x7ffffff0;  // no such process, and no lock: told by pid and heartbeat
    writer->begin_run(run, two_devices());
    writer->flush();
    RawDb raw(path_);
    // A fresh heartbeat alone keeps it: its pid may be another PID namespace's.
    EXPECT_THROW(delete_runs(path_, {run.id}, false), StoreError);
    ASSERT_TRUE(raw.exec("UPDATE runs SET heartbeat_wall_ns = heartbeat_wall_ns - 60000000000"));
    EXPECT_EQ(delete_runs(path_, {run.id}, false), 1u);
  }
  EXPECT_THROW(delete_runs(dir_ / "missing.db", {"abc"}, false), StoreError);
}

}  // namespace
}  // namespace gpuwatch::store_test
