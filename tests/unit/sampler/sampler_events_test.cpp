// The sampler's device-event thread: events reach the sink with gpuwatch's
// index on the sampling thread, a refusing driver stops neither sampling nor
// the run, and the thread ends with the run. No assertion depends on timing:
// runs are bounded by tick counts, and the sources answer at once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/device_event_kinds.h"
#include "sampler/sampler.h"

namespace gpuwatch {
namespace {

// Events scripted in order; once they are out, every wait times out (after
// a short sleep, as a driver blocks) or, with `fail`, is refused.
class ScriptedEvents final : public DeviceEventSource {
 public:
  ScriptedEvents(std::vector<DeviceEvent> events, bool fail, std::shared_ptr<std::atomic<int>> waits)
      : events_(std::move(events)), fail_(fail), waits_(std::move(waits)) {}
  Wait wait(std::chrono::milliseconds, DeviceEvent& out) override {
    ++*waits_;
    if (fail_) return Wait::Failed;
    if (next_ < events_.size()) {
      out = events_[next_++];
      return Wait::Event;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return Wait::Timeout;
  }

 private:
  std::vector<DeviceEvent> events_;
  std::size_t next_ = 0;
  bool fail_;
  std::shared_ptr<std::atomic<int>> waits_;
};

class EventBackend final : public GpuBackend {
 public:
  EventBackend(int devices, std::vector<DeviceEvent> events, bool fail = false)
      : devices_(devices), events_(std::move(events)), fail_(fail) {}
  std::string name() const override { return "events"; }
  std::vector<DeviceInfo> devices() const override {
    std::vector<DeviceInfo> out(static_cast<std::size_t>(devices_));
    for (int i = 0; i < devices_; ++i) out[static_cast<std::size_t>(i)].index = i;
    return out;
  }
  ReadStatus read_fast(std::size_t, DeviceValues& out) override {
    out.set(DeviceMetric::GpuUtilPercent, 50);
    return ReadStatus::Ok;
  }
  ReadStatus read_slow(std::size_t, const SlowReadPlan&, DeviceValues&, std::vector<GpuProcess>&) override {
    return ReadStatus::Ok;
  }
  std::unique_ptr<DeviceEventSource> open_events() override {
    ++opened;
    return std::make_unique<ScriptedEvents>(events_, fail_, waits);
  }

  int opened = 0;
  std::shared_ptr<std::atomic<int>> waits = std::make_shared<std::atomic<int>>(0);

 private:
  int devices_;
  std::vector<DeviceEvent> events_;
  bool fail_;
};

struct EventSink final : SampleSink {
  std::vector<Event> events;
  std::vector<std::thread::id> event_threads;
  int samples = 0;
  int ticks = 0;
  std::function<void(EventSink&)> after_tick;  // may stop the sampler
  void on_device_sample(const DeviceSample&) override { ++samples; }
  void on_host_sample(const HostSample&) override {}
  void on_processes(const std::vector<GpuProcess>&, Timestamp) override {}
  void on_device_lost(int, Timestamp) override {}
  void on_device_event(const Event& e) override {
    events.push_back(e);
    event_threads.push_back(std::this_thread::get_id());
  }
  void on_tick(Timestamp) override {
    ++ticks;
    if (after_tick) after_tick(*this);
  }
};

// Ends the run once `n` events came, or after 2000 ticks (10 s) in any case.
void stop_after_events(Sampler& sampler, EventSink& sink, std::size_t n) {
  sink.after_tick = [&sampler, n](EventSink& s) {
    if (s.events.size() >= n || s.ticks >= 2000) sampler.stop();
  };
}

DeviceEvent device_event(std::size_t local, std::string kind, std::string message) {
  DeviceEvent e;
  e.local_index = local;
  e.time = now();
  e.kind = std::move(kind);
  e.message = std::move(message);
  return e;
}

SamplerOptions options(std::vector<int> gpus = {}) {
  SamplerOptions o;
  o.interval = std::chrono::milliseconds(5);
  o.host = false;
  o.processes = false;
  o.gpus = std::move(gpus);
  return o;
}

TEST(SamplerEvents, EventsReachTheSinkWithTheGlobalIndexOnTheSamplingThread) {
  BackendSet set;
  set.backends.push_back({std::make_unique<EventBackend>(1, std::vector<DeviceEvent>{}), 0});
  auto backend = std::make_unique<EventBackend>(
      2, std::vector<DeviceEvent>{device_event(1, "xid", "XID 79: GPU has fallen off the bus"),
                                  device_event(0, "ecc_double_bit", "double-bit ECC error")});
  auto* events_backend = backend.get();
  set.backends.push_back({std::move(backend), 1});  // its GPUs are 1 and 2
  Sampler sampler(set, nullptr, options());
  EventSink sink;
  stop_after_events(sampler, sink, 2);
  sampler.run(sink);
  EXPECT_EQ(events_backend->opened, 1);
  ASSERT_EQ(sink.events.size(), 2U);
  EXPECT_EQ(sink.events[0].device_index, 2);
  EXPECT_EQ(sink.events[0].kind, "xid");
  EXPECT_EQ(sink.events[0].message, "XID 79: GPU has fallen off the bus");
  EXPECT_EQ(sink.events[1].device_index, 1);
  EXPECT_EQ(sink.events[1].kind, "ecc_double_bit");
  for (const auto& id : sink.event_threads) EXPECT_EQ(id, std::this_thread::get_id());
  EXPECT_EQ(sink.samples, sink.ticks * 3);
}

TEST(SamplerEvents, EventsOfGpusNotWatchedAreDropped) {
  BackendSet set;
  set.backends.push_back(
      {std::make_unique<EventBackend>(2, std::vector<DeviceEvent>{device_event(0, "xid", "XID 13"),
                                                                  device_event(1, "xid", "XID 31")}),
       0});
  Sampler sampler(set, nullptr, options({1}));
  EventSink sink;
  stop_after_events(sampler, sink, 1);  // GPU 1's comes after GPU 0's
  sampler.run(sink);
  ASSERT_EQ(sink.events.size(), 1U);
  EXPECT_EQ(sink.events[0].device_index, 1);
  EXPECT_EQ(sink.events[0].message, "XID 31");
}

// A storm must not grow the queue without bound: the sampling thread is
// held in its first tick until the source has handed out every event, so
// at least 2 * kMaxDeviceEventsPerTick of them wait at once whatever the
// first tick took.
TEST(SamplerEvents, AStormIsCappedPerTickAndTheDroppedAreCounted) {
  constexpr std::size_t kStorm = 3 * kMaxDeviceEventsPerTick;
  std::vector<DeviceEvent> storm;
  for (std::size_t i = 0; i < kStorm; ++i) {
    // GPU 1's are last: those past any two ticks' worth are dropped.
    storm.push_back(device_event(i < 2000 ? 0 : 1, std::string(kEccSingleBitEventKind), "ECC " + std::to_string(i)));
  }
  BackendSet set;
  auto backend = std::make_unique<EventBackend>(2, std::move(storm));
  auto waits = backend->waits;
  set.backends.push_back({std::move(backend), 0});
  Sampler sampler(set, nullptr, options());
  EventSink sink;
  std::vector<std::size_t> per_tick;  // events delivered in each tick, the summaries not counted
  std::size_t seen = 0;
  std::int64_t accounted = 0;
  sink.after_tick = [&](EventSink& s) {
    std::size_t kept = 0;
    for (; seen < s.events.size(); ++seen) {
      const Event& e = s.events[seen];
      if (e.kind == kEventsDroppedEventKind) {
        accounted += std::stoll(e.message);
      } else {
        ++kept;
        ++accounted;
      }
    }
    per_tick.push_back(kept);
    if (s.ticks == 1) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (waits->load() <= static_cast<int>(kStorm) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    if (accounted >= static_cast<std::int64_t>(kStorm) || s.ticks >= 2000) sampler.stop();
  };
  sampler.run(sink);
  EXPECT_EQ(accounted, static_cast<std::int64_t>(kStorm));
  for (const std::size_t kept : per_tick) EXPECT_LE(kept, kMaxDeviceEventsPerTick);
  // The summary names the last event it dropped: one of GPU 1's, never one
  // that was delivered. Which one depends on how far the source had got when
  // the first tick drained the queue (on a busy machine, not always the storm's end).
  const Event* gpu1 = nullptr;
  std::set<std::string> delivered;
  for (const Event& e : sink.events) {
    if (e.kind == kEventsDroppedEventKind && e.device_index == 1) gpu1 = &e;
    if (e.kind != kEventsDroppedEventKind) delivered.insert(e.message);
  }
  ASSERT_NE(gpu1, nullptr);
  const std::string marker = "(the last: ";
  const std::size_t at = gpu1->message.find(marker);
  ASSERT_NE(at, std::string::npos) << gpu1->message;
  const std::string last = gpu1->message.substr(at + marker.size(), gpu1->message.size() - at - marker.size() - 1);
  ASSERT_EQ(last.rfind("ECC ", 0), 0U) << gpu1->message;
  EXPECT_GE(std::stoul(last.substr(4)), 2000U) << gpu1->message;
  EXPECT_LT(std::stoul(last.substr(4)), kStorm) << gpu1->message;
  EXPECT_EQ(delivered.count(last), 0U) << last << " was delivered and counted as dropped";
}

TEST(SamplerEvents, ARefusingDriverStopsNeitherSamplingNorTheRun) {
  BackendSet set;
  auto backend = std::make_unique<EventBackend>(1, std::vector<DeviceEvent>{}, /*fail=*/true);
  auto waits = backend->waits;
  set.backends.push_back({std::move(backend), 0});
  Sampler sampler(set, nullptr, options());
  EventSink sink;
  sampler.run(sink, 10);
  EXPECT_EQ(sink.samples, 10);
  EXPECT_TRUE(sink.events.empty());
  EXPECT_GE(waits->load(), 1);
}

TEST(SamplerEvents, AStopBeforeTheRunStillEndsIt) {
  BackendSet set;
  set.backends.push_back({std::make_unique<EventBackend>(1, std::vector<DeviceEvent>{}), 0});
  Sampler sampler(set, nullptr, options());
  sampler.stop();
  EventSink sink;
  sampler.run(sink);  // no tick limit: returns only because of the stop
  EXPECT_EQ(sink.samples, 0);
}

}  // namespace
}  // namespace gpuwatch
