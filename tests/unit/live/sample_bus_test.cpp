// The bus fans out in order; a queued subscriber runs on its own thread, so
// one that blocks never holds up the sampling thread, and it drops whole ticks
// (counted) when it stops keeping up.
#include "live/queued_sink.h"
#include "live/sample_bus.h"

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

// Writes what it receives as a line of text per call.
struct RecordingSink final : SampleSink {
  std::string name;
  std::vector<std::string>* log;
  RecordingSink(std::string n, std::vector<std::string>& l) : name(std::move(n)), log(&l) {}
  void on_device_sample(const DeviceSample& s) override {
    log->push_back(name + " device " + std::to_string(s.device_index));
  }
  void on_host_sample(const HostSample&) override { log->push_back(name + " host"); }
  void on_processes(const std::vector<GpuProcess>& p, Timestamp) override {
    log->push_back(name + " processes " + std::to_string(p.size()));
  }
  void on_device_lost(int index, Timestamp) override { log->push_back(name + " lost " + std::to_string(index)); }
  void on_device_event(const Event& e) override { log->push_back(name + " " + e.kind + " " + e.message); }
  void on_tick(Timestamp t) override { log->push_back(name + " tick " + std::to_string(t.mono_ns)); }
};

// Blocks in on_tick until released; counts what got through.
struct GateSink final : SampleSink {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  int entered = 0;  // on_tick calls that started
  int ticks = 0;    // on_tick calls that finished
  int samples = 0;
  void on_device_sample(const DeviceSample&) override {
    std::lock_guard lock(mutex);
    ++samples;
  }
  void on_host_sample(const HostSample&) override {}
  void on_processes(const std::vector<GpuProcess>&, Timestamp) override {}
  void on_device_lost(int, Timestamp) override {}
  void on_tick(Timestamp) override {
    std::unique_lock lock(mutex);
    ++entered;
    cv.notify_all();
    cv.wait(lock, [this] { return open; });
    ++ticks;
  }
  void wait_entered(int n) {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return entered >= n; });
  }
  void release() {
    {
      std::lock_guard lock(mutex);
      open = true;
    }
    cv.notify_all();
  }
};

void one_tick(SampleSink& sink, std::int64_t t, int devices = 2) {
  for (int d = 0; d < devices; ++d) sink.on_device_sample(DeviceSample{d, {t, t}, {}});
  sink.on_tick({t, t});
}

TEST(SampleBus, EverySubscriberGetsEveryCallInOrder) {
  std::vector<std::string> log;
  RecordingSink a("a", log), b("b", log);
  SampleBus bus;
  bus.subscribe(a);
  bus.subscribe(b);
  EXPECT_EQ(bus.subscriber_count(), 2u);
  bus.on_device_sample(DeviceSample{1, {5, 5}, {}});
  bus.on_host_sample(HostSample{});
  bus.on_processes({GpuProcess{}, GpuProcess{}}, {5, 5});
  bus.on_device_lost(1, {6, 6});
  bus.on_device_event(Event{{6, 6}, 1, "xid", "XID 79"});
  bus.on_tick({7, 7});
  EXPECT_EQ(log, (std::vector<std::string>{"a device 1", "b device 1", "a host", "b host", "a processes 2",
                                           "b processes 2", "a lost 1", "b lost 1", "a xid XID 79", "b xid XID 79",
                                           "a tick 7", "b tick 7"}));
}

TEST(QueuedSink, DeliversEverythingInOrderOnDrain) {
  std::vector<std::string> log;
  RecordingSink target("t", log);
  QueuedSink queued(target);
  queued.on_processes({GpuProcess{}}, {1, 1});
  one_tick(queued, 1, 1);
  queued.on_device_lost(0, {2, 2});
  queued.on_device_event(Event{{2, 2}, 0, "ecc_double_bit", "lost bit"});
  one_tick(queued, 2, 0);
  queued.drain();
  EXPECT_EQ(log, (std::vector<std::string>{"t processes 1", "t device 0", "t tick 1", "t lost 0",
                                           "t ecc_double_bit lost bit", "t tick 2"}));
  EXPECT_EQ(queued.dropped_ticks(), 0u);
}

TEST(QueuedSink, ABlockedSubscriberDoesNotHoldUpTheProducer) {
  GateSink gate;
  QueuedSink queued(gate, 100);
  one_tick(queued, 1);
  gate.wait_entered(1);  // the worker now sits inside the target's on_tick
  // With the subscriber stuck, the producer still gets through 50 more ticks:
  // were the calls passed on directly, the first would never return.
  for (int t = 2; t <= 51; ++t) one_tick(queued, t);
  {
    std::lock_guard lock(gate.mutex);
    EXPECT_EQ(gate.ticks, 0);
  }
  gate.release();
  queued.drain();
  EXPECT_EQ(gate.ticks, 51);
  EXPECT_EQ(gate.samples, 102);
  EXPECT_EQ(queued.dropped_ticks(), 0u);
}

TEST(QueuedSink, BeyondItsBoundWholeTicksAreDroppedAndCounted) {
  GateSink gate;
  QueuedSink queued(gate, 3);
  one_tick(queued, 1);
  gate.wait_entered(1);
  for (int t = 2; t <= 11; ++t) one_tick(queued, t);  // 3 fit while tick 1 is stuck
  EXPECT_EQ(queued.dropped_ticks(), 7u);
  gate.release();
  queued.drain();
  EXPECT_EQ(gate.ticks, 4);
  EXPECT_EQ(gate.samples, 8);  // never half a tick
}

TEST(QueuedSink, TheDestructorDeliversWhatIsQueued) {
  std::vector<std::string> log;
  RecordingSink target("t", log);
  {
    QueuedSink queued(target);
    one_tick(queued, 1, 1);
    queued.on_device_sample(DeviceSample{3, {2, 2}, {}});  // a tick the sampler never closed
  }
  EXPECT_EQ(log, (std::vector<std::string>{"t device 0", "t tick 1", "t device 3"}));
}

struct ThrowingSink final : SampleSink {
  int ticks = 0;
  void on_device_sample(const DeviceSample&) override {}
  void on_host_sample(const HostSample&) override {}
  void on_processes(const std::vector<GpuProcess>&, Timestamp) override {}
  void on_device_lost(int, Timestamp) override {}
  void on_tick(Timestamp) override {
    if (++ticks == 2) throw std::runtime_error("disk on fire");
  }
};

TEST(QueuedSink, ASubscribersFailureReachesTheProducer) {
  ThrowingSink target;
  QueuedSink queued(target);
  for (int t = 1; t <= 5; ++t) one_tick(queued, t);
  EXPECT_THROW(queued.drain(), std::runtime_error);
  EXPECT_THROW(queued.rethrow_failure(), std::runtime_error);
  EXPECT_LE(target.ticks, 2);  // nothing after the failure reaches it
}

}  // namespace
}  // namespace gpuwatch
