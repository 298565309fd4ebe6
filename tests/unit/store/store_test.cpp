#include "store/store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <algorithm>
#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "store_test_util.h"

namespace gpuwatch {
namespace {

using store_test::kSecond;
using store_test::kWall0;
using store_test::RawDb;
using store_test::StoreTest;

TEST_F(StoreTest, RunLifecycleRoundTrip) {
  std::string id;
  {
    auto store = Store::open(path_, false);
    RunInfo run = new_run("baseline");
    run.command = {"sh", "-c", "echo \"hi\" \\ there\n\t\x01", "", "naïve ☃"};
    run.attached_pid = 4242;
    id = store->begin_run(run, two_devices());
    EXPECT_EQ(id.size(), 12u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_EQ(run.id, id);
    EXPECT_NE(run.row_id, 0);
    for (std::int64_t i = 0; i < 25; ++i) {
      store->append(device_sample(0, i));
      store->append(device_sample(1, i));
      store->append(host_sample(i, i < 10 ? 4 : 6));  // two cores hotplugged
      if (i == 12) store->flush();
    }
    GpuProcess p;
    p.pid = 1234;
    p.used_memory_bytes = 1000;
    p.kind = "compute";
    p.gpu_percent = 40;
    store->note_process(p, "python", {6 * kSecond, kWall0 + kSecond});
    p.used_memory_bytes = 5000;
    p.gpu_percent = 90;
    store->note_process(p, "python", {7 * kSecond, kWall0 + 2 * kSecond});
    store->flush();
    p.used_memory_bytes = 3000;  // later, lower: max stays, last seen moves
    p.gpu_percent = 50;          // the mean spans both commits
    store->note_process(p, "", {9 * kSecond, kWall0 + 4 * kSecond});
    GpuProcess xorg;
    xorg.device_index = 1;
    xorg.pid = 99;
    xorg.name = "Xorg";  // the process's own name is used when none is passed
    store->note_process(xorg, "", {8 * kSecond, kWall0 + 3 * kSecond});
    store->add_event({{6 * kSecond, kWall0 + kSecond}, 1, "gpu_lost", "GPU 1 fell off the bus"});
    store->add_event({{5 * kSecond, kWall0}, std::nullopt, "signal", "SIGTERM"});
    store->mark_lost(1, {6 * kSecond, kWall0 + kSecond});
    run.exit_code = 3;
    run.end_reason = "exited";
    run.jitter = {250, 2, 1500.5, 9000, 20000};
    run.end_wall_ns = kWall0 + 10 * kSecond;
    store->finish_run(run);
  }

  auto store = Store::open(path_, true);
  const auto runs = store->list_runs();
  ASSERT_EQ(runs.size(), 1u);
  const RunInfo& r = runs[0];
  EXPECT_EQ(r.id, id);
  EXPECT_EQ(r.status, RunStatus::Finished);
  EXPECT_EQ(to_string(r.status), "finished");
  EXPECT_EQ(r.name, "baseline");
  EXPECT_EQ(r.command, (std::vector<std::string>{"sh", "-c", "echo \"hi\" \\ there\n\t\x01", "", "naïve ☃"}));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.exit_signal.has_value());
  EXPECT_EQ(r.end_reason, "exited");
  EXPECT_EQ(r.end_wall_ns, kWall0 + 10 * kSecond);
  EXPECT_EQ(r.attached_pid, 4242u);
  EXPECT_EQ(r.recorder_pid, getpid());
  EXPECT_FALSE(r.host.empty());
  EXPECT_DOUBLE_EQ(r.interval_s, 0.1);
  EXPECT_EQ(r.jitter.missed_deadlines, 2);
  EXPECT_DOUBLE_EQ(r.jitter.mean_late_ns, 1500.5);

  const RunData data = store->load(store->resolve(id));
  ASSERT_EQ(data.devices.size(), 2u);
  for (int d = 0; d < 2; ++d) {
    const DeviceSeries& s = data.devices[static_cast<std::size_t>(d)];
    EXPECT_EQ(s.info.index, d);
    EXPECT_EQ(s.info.uuid, "GPU-" + std::to_string(d));
    EXPECT_EQ(s.info.supported, (std::vector<DeviceMetric>{DeviceMetric::GpuUtilPercent, DeviceMetric::PowerWatts}));
    EXPECT_EQ(s.info.static_values.get(DeviceMetric::MemTotalBytes), 85899345920.0);
    EXPECT_EQ(s.info.static_values.get(DeviceMetric::SmClockMaxMhz), 1980.0);
    ASSERT_EQ(s.mono_ns.size(), 25u);
    ASSERT_EQ(s.values.size(), kDeviceMetricCount);
    for (std::size_t i = 0; i < 25; ++i) {
      const DeviceSample want = device_sample(d, static_cast<std::int64_t>(i));
      EXPECT_EQ(s.mono_ns[i], want.time.mono_ns);
      EXPECT_EQ(s.wall_ns[i], want.time.wall_ns);
      for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
        const double got = s.values[m][i];
        const double expected = want.values.value_or_nan(static_cast<DeviceMetric>(m));
        if (std::isnan(expected)) {
          EXPECT_TRUE(std::isnan(got)) << "metric " << m << " row " << i;
        } else {
          EXPECT_EQ(got, expected) << "metric " << m << " row " << i;
        }
      }
    }
  }
  EXPECT_FALSE(data.devices[0].lost_at_wall_ns.has_value());
  EXPECT_EQ(data.devices[1].lost_at_wall_ns, kWall0 + kSecond);

  const HostSeries& h = data.host;
  ASSERT_EQ(h.mono_ns.size(), 25u);
  EXPECT_EQ(h.values[static_cast<std::size_t>(HostMetric::CpuPercent)][3], 12.5);
  EXPECT_EQ(h.values[static_cast<std::size_t>(HostMetric::MemUsedBytes)][24], 1e9 + 24);
  EXPECT_TRUE(std::isnan(h.values[static_cast<std::size_t>(HostMetric::TreeRssBytes)][0]));
  ASSERT_EQ(h.core_percent.size(), 6u);
  for (const auto& core : h.core_percent) ASSERT_EQ(core.size(), 25u);
  EXPECT_EQ(h.core_percent[1][0], 1.25);
  EXPECT_TRUE(std::isnan(h.core_percent[5][9]));
  EXPECT_EQ(h.core_percent[5][10], 5.25);
  // What report and status read: the host without its per-core columns.
  LoadOptions no_cores;
  no_cores.host_cores = false;
  const HostSeries without = store->load(store->resolve(id), no_cores).host;
  EXPECT_TRUE(without.core_percent.empty());
  EXPECT_EQ(without.mono_ns, h.mono_ns);
  EXPECT_EQ(without.values[static_cast<std::size_t>(HostMetric::CpuPercent)][3], 12.5);
  EXPECT_EQ(without.values[static_cast<std::size_t>(HostMetric::MemUsedBytes)][24], 1e9 + 24);

  ASSERT_EQ(data.processes.size(), 2u);
  EXPECT_EQ(data.processes[0].pid, 1234u);
  EXPECT_EQ(data.processes[0].name, "python");
  EXPECT_EQ(data.processes[0].first_seen_wall_ns, kWall0 + kSecond);
  EXPECT_EQ(data.processes[0].last_seen_wall_ns, kWall0 + 4 * kSecond);
  EXPECT_EQ(data.processes[0].max_used_memory_bytes, 5000u);
  EXPECT_EQ(data.processes[0].max_gpu_percent, 90.0);
  EXPECT_EQ(data.processes[0].mean_gpu_percent(), 60.0);
  EXPECT_EQ(data.processes[1].name, "Xorg");
  EXPECT_FALSE(data.processes[1].max_used_memory_bytes.has_value());
  EXPECT_FALSE(data.processes[1].max_gpu_percent.has_value());  // the driver gave none
  EXPECT_FALSE(data.processes[1].mean_gpu_percent().has_value());

  ASSERT_EQ(data.events.size(), 2u);
  EXPECT_EQ(data.events[0].kind, "signal");
  EXPECT_FALSE(data.events[0].device_index.has_value());
  EXPECT_EQ(data.events[1].kind, "gpu_lost");
  EXPECT_EQ(data.events[1].device_index, 1);
  EXPECT_EQ(data.events[1].message, "GPU 1 fell off the bus");

  // One chunk row per series per flush (two flushes with data); finishing
  // the run merged each series' chunks into one.
  RawDb raw(path_);
  EXPECT_EQ(raw.text("SELECT count(*) FROM sample_chunks"), "2");
  EXPECT_EQ(raw.text("SELECT count(*) FROM host_chunks"), "1");
  EXPECT_EQ(raw.text("SELECT supported_metrics FROM devices WHERE idx = 0"), "gpu_util_percent,power_watts");
  EXPECT_EQ(raw.text("SELECT command FROM runs"),
            R"(["sh","-c","echo \"hi\" \\ there\n\t\u0001","","naïve ☃"])");
}

TEST_F(StoreTest, LargeFlushIsSplitIntoBoundedChunks) {
  auto store = Store::open(path_, false);
  RunInfo run = new_run("big");
  store->begin_run(run, two_devices());
  constexpr std::int64_t kRows = 70000;
  for (std::int64_t i = 0; i < kRows; ++i) store->append(device_sample(0, i));
  store->flush();
  store->finish_run(run);
  RawDb raw(path_);
  EXPECT_EQ(raw.text("SELECT count(*) FROM sample_chunks"), "2");
  const RunData data = store->load(run);
  ASSERT_EQ(data.devices[0].mono_ns.size(), static_cast<std::size_t>(kRows));
  EXPECT_EQ(data.devices[0].mono_ns.back(), device_sample(0, kRows - 1).time.mono_ns);
  EXPECT_TRUE(data.devices[1].mono_ns.empty());
}

TEST_F(StoreTest, ResolveByIdPrefixNameAndLast) {
  auto store = Store::open(path_, false);
  auto make = [&](const std::string& id, const std::string& name, std::int64_t start) {
    RunInfo r = new_run(name);
    r.id = id;
    r.start_wall_ns = start;
    r.start_mono_ns = start;
    store->begin_run(r, {});
    store->finish_run(r);
  };
  make("abc000000001", "opt-a", kWall0);
  make("abc000000002", "opt-b", kWall0 + kSecond);
  make("def000000003", "opt-a", kWall0 + 2 * kSecond);
  make("0aa000000004", "abc", kWall0 + 3 * kSecond);

  EXPECT_EQ(store->resolve("abc000000002").name, "opt-b");
  EXPECT_EQ(store->resolve("def").id, "def000000003");
  EXPECT_EQ(store->resolve("abc000000001").id, "abc000000001");
  EXPECT_EQ(store->resolve("opt-a").id, "def000000003");  // latest of that name
  EXPECT_EQ(store->resolve("last").id, "0aa000000004");
  EXPECT_EQ(store->resolve("abc").id, "0aa000000004");    // a name wins over a prefix
  try {
    (void)store->resolve("abc0");
    FAIL() << "ambiguous prefix resolved";
  } catch (const StoreError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ambiguous"), std::string::npos) << msg;
    EXPECT_NE(msg.find("abc000000001 (opt-a)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("abc000000002 (opt-b)"), std::string::npos) << msg;
  }
  try {
    (void)store->resolve("nope");
    FAIL() << "unknown run resolved";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("no run matches 'nope'"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)store->resolve(""), StoreError);
  RunInfo dup = new_run("dup");
  dup.id = "def000000003";
  EXPECT_THROW(store->begin_run(dup, {}), StoreError);

  const auto runs = store->list_runs();
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs.front().id, "abc000000001");  // oldest first
}

TEST_F(StoreTest, LastOnEmptyStoreIsAClearError) {
  auto store = Store::open(path_, false);
  try {
    (void)store->resolve("last");
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("no runs"), std::string::npos) << e.what();
  }
}

// Recorder pid that cannot exist (above pid_max's ceiling of 2^22).
constexpr std::int64_t kDeadPid = 0x7ffffff0;

TEST_F(StoreTest, RunOfDeadRecorderIsInterrupted) {
  auto writer = Store::open(path_, false);
  RunInfo run = new_run("crashed");
  run.recorder_pid = kDeadPid;
  writer->begin_run(run, two_devices());
  writer->append(device_sample(0, 0));
  writer->flush();
  // The writer itself knows its run is alive.
  EXPECT_EQ(writer->list_runs().at(0).status, RunStatus::Recording);
  RawDb raw(path_);
  // Recorded for another pid, the run has no lock: while its heartbeat is
  // fresh it counts as alive (the pid may be another PID namespace's)...
  EXPECT_EQ(Store::open(path_, true)->resolve("crashed").status, RunStatus::Recording);
  // ...and once the heartbeat is old, the pid decides.
  ASSERT_TRUE(raw.exec("UPDATE runs SET heartbeat_wall_ns = heartbeat_wall_ns - 60000000000"));

  {
    auto reader = Store::open(path_, true);
    const RunInfo r = reader->resolve("crashed");
    EXPECT_EQ(r.status, RunStatus::Interrupted);
    EXPECT_EQ(r.end_reason, "interrupted");
    EXPECT_EQ(r.end_wall_ns, r.heartbeat_wall_ns);
    EXPECT_EQ(reader->load(r).run.status, RunStatus::Interrupted);
  }
  EXPECT_EQ(raw.text("SELECT status FROM runs"), "recording");  // a reader changes nothing

  {
    auto other_writer = Store::open(path_, false);
    EXPECT_EQ(other_writer->list_runs().at(0).status, RunStatus::Interrupted);
  }
  EXPECT_EQ(raw.text("SELECT status FROM runs"), "interrupted");
  // A recorder that was only stalled overrules that on its next commit.
  writer->flush();
  EXPECT_EQ(raw.text("SELECT status FROM runs"), "recording");
}

TEST_F(StoreTest, RecorderLivenessByPidBootAndHost) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);

  auto writer = Store::open(path_, false);
  RunInfo run = new_run("exited-child");
  run.recorder_pid = child;  // not this process: no lock, as recorders before schema 7
  writer->begin_run(run, {});
  writer->flush();

  // More runs left in state recording, as killed recorders leave them:
  // copies of the first row with other recorder identities.
  RawDb raw(path_);
  ASSERT_TRUE(raw.exec("UPDATE runs SET heartbeat_wall_ns = heartbeat_wall_ns - 60000000000"));
  auto insert = [&](const std::string& id, const std::string& name, const std::string& host, const std::string& pid,
                    const std::string& boot, const std::string& heartbeat) {
    const std::string sql = fmt::format(
        "INSERT INTO runs (public_id, name, command, cwd, host, start_wall_ns, start_mono_ns, interval_s, version, "
        "status, recorder_pid, recorder_boot_id, heartbeat_wall_ns) "
        "SELECT '{}', '{}', command, cwd, {}, start_wall_ns + 1, start_mono_ns, interval_s, version, 'recording', "
        "{}, {}, {} FROM runs WHERE name = 'exited-child'",
        id, name, host, pid, boot, heartbeat);
    ASSERT_TRUE(raw.exec(sql)) << sql;
  };
  const std::string me = std::to_string(getpid());
  insert("000000000001", "me", "host", me, "recorder_boot_id", "heartbeat_wall_ns");
  insert("000000000002", "rebooted", "host", me, "'another-boot'", "heartbeat_wall_ns");
  insert("000000000003", "remote-fresh", "'elsewhere'", "1", "'x'", std::to_string(now().wall_ns));
  insert("000000000004", "remote-stale", "'elsewhere'", "1", "'x'", std::to_string(now().wall_ns - 60 * kSecond));
  insert("000000000005", "unseen-fresh", "host", std::to_string(child), "recorder_boot_id",
         std::to_string(now().wall_ns));

  auto reader = Store::open(path_, true);
  auto status_of = [&](const std::string& name) { return reader->resolve(name).status; };
  EXPECT_EQ(status_of("exited-child"), RunStatus::Interrupted);
  EXPECT_EQ(status_of("me"), RunStatus::Recording);
  EXPECT_EQ(status_of("rebooted"), RunStatus::Interrupted);
  EXPECT_EQ(status_of("remote-fresh"), RunStatus::Recording);
  EXPECT_EQ(status_of("remote-stale"), RunStatus::Interrupted);
  // Its pid is gone here, but its heartbeat is fresh: a recorder in another
  // PID namespace looks just so.
  EXPECT_EQ(status_of("unseen-fresh"), RunStatus::Recording);
}

TEST_F(StoreTest, KilledRecorderLosesOnlyUnflushedSamples) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      auto store = Store::open(path_, false);
      RunInfo run = new_run("killed");
      store->begin_run(run, two_devices());
      for (std::int64_t i = 0; i < 10; ++i) store->append(device_sample(0, i));
      store->flush();
      for (std::int64_t i = 10; i < 15; ++i) store->append(device_sample(0, i));
      raise(SIGKILL);
    } catch (...) {
    }
    _exit(1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));

  auto reader = Store::open(path_, true);
  const RunInfo run = reader->resolve("killed");
  EXPECT_EQ(run.status, RunStatus::Interrupted);
  const RunData data = reader->load(run);
  ASSERT_EQ(data.devices.size(), 2u);
  EXPECT_EQ(data.devices[0].mono_ns.size(), 10u);
}

TEST_F(StoreTest, DestroyingAStoreWithAnOpenRunMarksItInterrupted) {
  {
    auto store = Store::open(path_, false);
    RunInfo run = new_run("abandoned");
    store->begin_run(run, {});
    store->append(host_sample(0, 2));
  }
  auto reader = Store::open(path_, true);
  const RunInfo r = reader->resolve("abandoned");
  EXPECT_EQ(r.status, RunStatus::Interrupted);
  EXPECT_EQ(reader->load(r).host.mono_ns.size(), 1u);
}

TEST_F(StoreTest, FlushedSamplesAreVisibleToASecondConnection) {
  auto writer = Store::open(path_, false);
  RunInfo run = new_run("durable");
  writer->begin_run(run, two_devices());
  for (std::int64_t i = 0; i < 5; ++i) writer->append(device_sample(0, i));

  auto reader = Store::open(path_, true);
  EXPECT_EQ(reader->load(reader->resolve("durable")).devices[0].mono_ns.size(), 0u);
  RawDb raw(path_);
  EXPECT_EQ(raw.text("SELECT count(*) FROM sample_chunks"), "0");
  writer->flush();
  EXPECT_EQ(raw.text("SELECT sum(count) FROM sample_chunks"), "5");
  EXPECT_EQ(reader->load(reader->resolve("durable")).devices[0].mono_ns.size(), 5u);
  EXPECT_GE(std::stoll(raw.text("SELECT heartbeat_wall_ns FROM runs")), run.heartbeat_wall_ns);
}

TEST_F(StoreTest, ReaderNeverBlocksTheWriter) {
  auto writer = Store::open(path_, false);
  RunInfo run = new_run("live");
  writer->begin_run(run, two_devices());
  writer->append(device_sample(0, 0));
  writer->flush();

  // A reader holding a snapshot open does not stop commits.
  RawDb snapshot(path_);
  ASSERT_TRUE(snapshot.exec("BEGIN"));
  EXPECT_EQ(snapshot.text("SELECT sum(count) FROM sample_chunks"), "1");
  writer->append(device_sample(0, 1));
  writer->flush();
  EXPECT_EQ(snapshot.text("SELECT sum(count) FROM sample_chunks"), "1");  // its snapshot
  ASSERT_TRUE(snapshot.exec("COMMIT"));
  EXPECT_EQ(snapshot.text("SELECT sum(count) FROM sample_chunks"), "2");

  // Concurrent: a writer thread commits batches of 10 while a reader loads.
  std::atomic<bool> done{false};
  std::thread producer([&] {
    for (std::int64_t batch = 0; batch < 40; ++batch) {
      for (std::int64_t i = 0; i < 10; ++i) writer->append(device_sample(1, batch * 10 + i));
      writer->flush();
    }
    done = true;
  });
  auto reader = Store::open(path_, true);
  std::size_t last = 0;
  int loads = 0;
  while (!done || loads < 3) {
    const RunData data = reader->load(reader->resolve(run.id));
    const DeviceSeries& s = data.devices.at(1);
    ASSERT_EQ(s.mono_ns.size() % 10, 0u);  // whole commits only
    ASSERT_GE(s.mono_ns.size(), last);
    for (const auto& col : s.values) ASSERT_EQ(col.size(), s.mono_ns.size());
    last = s.mono_ns.size();
    ++loads;
  }
  producer.join();
  EXPECT_EQ(reader->load(run).devices.at(1).mono_ns.size(), 400u);
}

TEST_F(StoreTest, CorruptChunkIsSkippedAndReported) {
  auto store = Store::open(path_, false);
  RunInfo run = new_run("damaged");
  store->begin_run(run, two_devices());
  for (std::int64_t i = 0; i < 3; ++i) {
    for (std::int64_t k = 0; k < 4; ++k) store->append(device_sample(0, i * 4 + k));
    store->flush();
  }
  // Damaged before the run finishes: compaction must leave the bad chunk
  // alone and not merge its neighbours across it.
  RawDb raw(path_);
  ASSERT_TRUE(raw.exec("UPDATE sample_chunks SET data = x'01ffff' WHERE id = (SELECT min(id) + 1 FROM sample_chunks)"));
  store->finish_run(run);
  EXPECT_EQ(raw.text("SELECT count(*) FROM sample_chunks"), "3");
  const RunData data = store->load(run);
  EXPECT_EQ(data.devices[0].mono_ns.size(), 8u);
  ASSERT_EQ(data.events.size(), 1u);
  EXPECT_EQ(data.events[0].kind, "store_corrupt_chunk");
  EXPECT_EQ(data.events[0].device_index, 0);
  EXPECT_EQ(data.events[0].time.mono_ns, device_sample(0, 4).time.mono_ns);
}

TEST_F(StoreTest, FinishingARunMergesItsChunksWithoutChangingItsSamples) {
  auto store = Store::open(path_, false);
  RunInfo run = new_run("compact");
  store->begin_run(run, two_devices());
  for (std::int64_t flush = 0; flush < 30; ++flush) {
    for (std::int64_t k = 0; k < 10; ++k) {
      store->append(device_sample(0, flush * 10 + k));
      store->append(device_sample(1, flush * 10 + k));
    }
    store->flush();
  }
  const RunData before = store->load(run);
  RawDb raw(path_);
  EXPECT_EQ(raw.text("SELECT count(*) FROM sample_chunks"), "60");
  store->finish_run(run);
  EXPECT_EQ(raw.text("SELECT count(*) FROM sample_chunks"), "2");
  const RunData after = store->load(run);
  ASSERT_EQ(after.devices.size(), before.devices.size());
  for (std::size_t d = 0; d < after.devices.size(); ++d) {
    EXPECT_EQ(after.devices[d].mono_ns, before.devices[d].mono_ns);
    EXPECT_EQ(after.devices[d].wall_ns, before.devices[d].wall_ns);
    ASSERT_EQ(after.devices[d].values.size(), before.devices[d].values.size());
    for (std::size_t m = 0; m < after.devices[d].values.size(); ++m) {
      const auto& a = after.devices[d].values[m];
      const auto& b = before.devices[d].values[m];
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_TRUE(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))) << "metric " << m << " row " << i;
      }
    }
  }
}

// Longer than one merged chunk (8192 rows): the finish writes each merged
// chunk as it fills, in time order, and none of the samples moves.
TEST_F(StoreTest, FinishingALongRunWritesSeveralMergedChunksInOrder) {
  auto store = Store::open(path_, false);
  RunInfo run = new_run("long");
  store->begin_run(run, two_devices());
  constexpr std::int64_t kRowsPerFlush = 100;
  constexpr std::int64_t kFlushes = 200;  // 20000 rows a device
  for (std::int64_t flush = 0; flush < kFlushes; ++flush) {
    for (std::int64_t k = 0; k < kRowsPerFlush; ++k) store->append(device_sample(flush % 2, flush * kRowsPerFlush + k));
    store->flush();
  }
  const RunData before = store->load(run);
  store->finish_run(run);
  RawDb raw(path_);
  // 10000 rows a device (every other flush), 8192 a merged chunk at most: two each.
  EXPECT_EQ(raw.text("SELECT count(*) FROM sample_chunks"), "4");
  EXPECT_EQ(raw.text("SELECT group_concat(count, ',') FROM (SELECT count FROM sample_chunks WHERE device_idx = 0 "
                     "ORDER BY first_mono_ns)"),
            "8200,1800");
  const RunData after = store->load(run);
  ASSERT_EQ(after.devices.size(), before.devices.size());
  for (std::size_t d = 0; d < after.devices.size(); ++d) {
    EXPECT_EQ(after.devices[d].mono_ns, before.devices[d].mono_ns);
    ASSERT_EQ(after.devices[d].values.size(), before.devices[d].values.size());
    for (std::size_t m = 0; m < after.devices[d].values.size(); ++m) {
      const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
      const auto& a = after.devices[d].values[m];
      const auto& b = before.devices[d].values[m];
      EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end(), same)) << "device " << d << " metric " << m;
    }
  }
}

TEST_F(StoreTest, LoadOptionsReadOneDeviceAndSomeMetrics) {
  auto store = Store::open(path_, false);
  RunInfo run = new_run("partial");
  store->begin_run(run, two_devices());
  for (std::int64_t i = 0; i < 20; ++i) {
    store->append(device_sample(0, i));
    store->append(device_sample(1, i));
  }
  store->finish_run(run);
  LoadOptions options;
  options.device = 1;
  options.metrics = std::vector<DeviceMetric>{DeviceMetric::PowerWatts};
  options.host = false;
  const RunData part = store->load(run, options);
  ASSERT_EQ(part.devices.size(), 1u);
  EXPECT_EQ(part.devices[0].info.index, 1);
  EXPECT_EQ(part.devices[0].mono_ns.size(), 20u);
  const RunData all = store->load(run);
  const auto power = static_cast<std::size_t>(DeviceMetric::PowerWatts);
  EXPECT_EQ(part.devices[0].values[power], all.devices[1].values[power]);
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (m != power) {
      EXPECT_TRUE(part.devices[0].values[m].empty()) << "metric " << m;
    }
  }
  EXPECT_TRUE(part.events.empty());
  EXPECT_TRUE(part.host.mono_ns.empty());

  LoadOptions facts;
  facts.device_samples = false;
  const RunData base = store->load(run, facts);
  ASSERT_EQ(base.devices.size(), 2u);
  EXPECT_TRUE(base.devices[0].mono_ns.empty());
  EXPECT_EQ(base.devices[1].info.name, all.devices[1].info.name);
}

TEST_F(StoreTest, LoadOptionsSinceReadsTheEndOfARun) {
  auto store = Store::open(path_, false);
  RunInfo run = new_run("tail");
  store->begin_run(run, two_devices());
  for (std::int64_t i = 0; i < 30; ++i) {
    store->append(device_sample(0, i));
    store->append(device_sample(1, i));
    if (i % 10 == 9) store->flush();  // several chunks: the first ones are skipped whole
  }
  store->add_event({device_sample(0, 2).time, std::nullopt, "epoch", "1"});
  store->finish_run(run);
  const RunData all = store->load(run);
  LoadOptions options;
  options.since_mono_ns = all.devices[0].mono_ns[25];
  const RunData tail = store->load(run, options);
  ASSERT_EQ(tail.devices.size(), 2u);
  for (std::size_t d = 0; d < 2; ++d) {
    ASSERT_EQ(tail.devices[d].mono_ns.size(), 5u);
    EXPECT_EQ(tail.devices[d].mono_ns.front(), all.devices[d].mono_ns[25]);
    EXPECT_EQ(tail.devices[d].wall_ns.front(), all.devices[d].wall_ns[25]);
    const auto power = static_cast<std::size_t>(DeviceMetric::PowerWatts);
    EXPECT_EQ(tail.devices[d].values[power].front(), all.devices[d].values[power][25]);
    EXPECT_EQ(tail.devices[d].values[power].size(), 5u);
  }
  EXPECT_EQ(tail.events.size(), all.events.size());  // events are all read
  options.since_mono_ns = all.devices[0].mono_ns[5];
  options.until_mono_ns = all.devices[0].mono_ns[12];
  const RunData middle = store->load(run, options);
  ASSERT_EQ(middle.devices[1].mono_ns.size(), 8u);  // samples 5 to 12, from the first two chunks
  EXPECT_EQ(middle.devices[1].mono_ns.back(), all.devices[1].mono_ns[12]);
  EXPECT_EQ(middle.devices[1].values[static_cast<std::size_t>(DeviceMetric::PowerWatts)].size(), 8u);
}

}  // namespace
}  // namespace gpuwatch
