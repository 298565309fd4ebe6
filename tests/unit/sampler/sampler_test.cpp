#include "sampler/sampler.h"

#include <atomic>
#include <map>
#include <thread>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

// An in-process backend: device d reports utilization 10*d, energy counts
// slow reads, and a device can be told to vanish after some reads.
class ScriptedBackend final : public GpuBackend {
 public:
  explicit ScriptedBackend(int devices, int lose_device = -1, int lose_after = 0)
      : devices_(devices), lose_device_(lose_device), lose_after_(lose_after) {}
  std::string name() const override { return "scripted"; }
  std::vector<DeviceInfo> devices() const override {
    std::vector<DeviceInfo> out;
    for (int i = 0; i < devices_; ++i) {
      DeviceInfo d;
      d.index = i;
      d.name = "Scripted GPU";
      out.push_back(d);
    }
    return out;
  }
  ReadStatus read_fast(std::size_t i, DeviceValues& out) override {
    if (static_cast<int>(i) == lose_device_ && ++fast_reads_of_lost_ > lose_after_) return ReadStatus::Lost;
    out.set(DeviceMetric::GpuUtilPercent, 10.0 * static_cast<double>(i));
    return ReadStatus::Ok;
  }
  ReadStatus read_slow(std::size_t i, const SlowReadPlan&, DeviceValues& out,
                       std::vector<GpuProcess>& processes) override {
    out.set(DeviceMetric::EnergyJoules, static_cast<double>(++slow_reads_));
    GpuProcess p;
    p.pid = 4242 + static_cast<std::uint32_t>(i);
    p.used_memory_bytes = 1024;
    p.kind = "compute";
    processes.push_back(p);
    return ReadStatus::Ok;
  }

 private:
  int devices_;
  int lose_device_;
  int lose_after_;
  std::atomic<int> fast_reads_of_lost_{0};
  std::atomic<int> slow_reads_{0};
};

struct CollectingSink final : SampleSink {
  std::map<int, std::vector<DeviceSample>> samples;
  std::vector<int> lost;
  std::vector<GpuProcess> processes;
  int ticks = 0;
  void on_device_sample(const DeviceSample& s) override { samples[s.device_index].push_back(s); }
  void on_host_sample(const HostSample&) override {}
  void on_processes(const std::vector<GpuProcess>& p, Timestamp) override {
    processes.insert(processes.end(), p.begin(), p.end());
  }
  void on_device_lost(int index, Timestamp) override { lost.push_back(index); }
  void on_tick(Timestamp) override { ++ticks; }
};

BackendSet make_set(std::unique_ptr<GpuBackend> backend) {
  BackendSet set;
  set.devices = backend->devices();
  set.backends.push_back({std::move(backend), 0});
  return set;
}

SamplerOptions fast_options() {
  SamplerOptions o;
  o.interval = std::chrono::milliseconds(10);
  o.host = false;
  return o;
}

TEST(Sampler, SamplesEveryDeviceOnEveryTick) {
  BackendSet set = make_set(std::make_unique<ScriptedBackend>(3));
  Sampler sampler(set, nullptr, fast_options());
  CollectingSink sink;
  sampler.run(sink, 5);
  EXPECT_EQ(sink.ticks, 5);
  ASSERT_EQ(sink.samples.size(), 3u);
  for (const auto& [index, samples] : sink.samples) {
    ASSERT_EQ(samples.size(), 5u);
    EXPECT_DOUBLE_EQ(*samples[0].values.get(DeviceMetric::GpuUtilPercent), 10.0 * index);
    // Samples of one tick share one timestamp; ticks move forward.
    EXPECT_EQ(samples[0].time.mono_ns, sink.samples[0][0].time.mono_ns);
    EXPECT_LT(samples[0].time.mono_ns, samples[4].time.mono_ns);
  }
  EXPECT_EQ(sampler.jitter().ticks, 5);
}

TEST(Sampler, FirstSampleAlreadyCarriesSlowMetricsAndProcesses) {
  BackendSet set = make_set(std::make_unique<ScriptedBackend>(2));
  Sampler sampler(set, nullptr, fast_options());
  CollectingSink sink;
  sampler.run(sink, 1);
  ASSERT_EQ(sink.samples[0].size(), 1u);
  EXPECT_TRUE(sink.samples[0][0].values.has(DeviceMetric::EnergyJoules));
  EXPECT_TRUE(sink.samples[1][0].values.has(DeviceMetric::EnergyJoules));
  ASSERT_GE(sink.processes.size(), 2u);
  EXPECT_EQ(sink.processes[1].device_index, 1);
}

TEST(Sampler, SlowValuesAppearOncePerSlowRead) {
  BackendSet set = make_set(std::make_unique<ScriptedBackend>(1));
  SamplerOptions o = fast_options();
  o.slow_interval = std::chrono::seconds(3600);  // only the priming read
  Sampler sampler(set, nullptr, o);
  CollectingSink sink;
  sampler.run(sink, 4);
  int with_energy = 0;
  for (const auto& s : sink.samples[0]) with_energy += s.values.has(DeviceMetric::EnergyJoules) ? 1 : 0;
  EXPECT_EQ(with_energy, 1);
}

TEST(Sampler, ALostDeviceIsReportedOnceAndTheOthersGoOn) {
  BackendSet set = make_set(std::make_unique<ScriptedBackend>(2, 1, 2));
  Sampler sampler(set, nullptr, fast_options());
  CollectingSink sink;
  sampler.run(sink, 6);
  ASSERT_EQ(sink.lost.size(), 1u);
  EXPECT_EQ(sink.lost[0], 1);
  EXPECT_EQ(sink.samples[0].size(), 6u);
  EXPECT_EQ(sink.samples[1].size(), 2u);
}

TEST(Sampler, OnlyTheSelectedGpusAreRead) {
  BackendSet set = make_set(std::make_unique<ScriptedBackend>(4));
  SamplerOptions o = fast_options();
  o.gpus = {1, 3};
  Sampler sampler(set, nullptr, o);
  CollectingSink sink;
  sampler.run(sink, 2);
  ASSERT_EQ(sink.samples.size(), 2u);
  EXPECT_TRUE(sink.samples.count(1));
  EXPECT_TRUE(sink.samples.count(3));
}

TEST(Sampler, StopFromAnotherThreadEndsRun) {
  BackendSet set = make_set(std::make_unique<ScriptedBackend>(1));
  SamplerOptions o = fast_options();
  o.interval = std::chrono::seconds(3600);  // would wait an hour for tick 2
  Sampler sampler(set, nullptr, o);
  CollectingSink sink;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sampler.stop();
  });
  sampler.run(sink);
  stopper.join();
  EXPECT_EQ(sink.ticks, 1);
}

TEST(Sampler, StopBeforeRunReturnsAtOnce) {
  BackendSet set = make_set(std::make_unique<ScriptedBackend>(1));
  Sampler sampler(set, nullptr, fast_options());
  sampler.stop();
  CollectingSink sink;
  sampler.run(sink);
  EXPECT_EQ(sink.ticks, 0);
}

}  // namespace
}  // namespace gpuwatch
