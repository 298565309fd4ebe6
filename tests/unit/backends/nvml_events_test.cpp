// NVML's XID and ECC events, and the MIG listing, against the fake driver's
// scripted events and MIG devices. Every wait is bounded (a number of the
// driver's timeouts), and nothing asserts how long anything took.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "backends/nvml/nvml_backend.h"
#include "backends/nvml/nvml_events.h"

namespace gpuwatch {
namespace {

using namespace std::chrono_literals;

constexpr const char* kFast = "pcie_delay_ms=0;energy_delay_ms=0;";
// Enough of the fake's 50 ms timeouts for any scripted event due at 0 s.
constexpr int kMaxWaits = 100;

class NvmlEventsTest : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("FAKE_NVML_SET"); }

  std::unique_ptr<GpuBackend> open(const std::string& scenario, const char* library = FAKE_NVML_PATH) {
    setenv("FAKE_NVML_SET", (kFast + scenario).c_str(), 1);
    SystemPaths paths;
    paths.nvml_library = library;
    std::string why_not;
    auto backend = open_nvml_backend(paths, why_not);
    if (!backend) ADD_FAILURE() << why_not;
    return backend;
  }

  // The next `n` events, waiting at most kMaxWaits timeouts in all.
  static std::vector<DeviceEvent> next_events(DeviceEventSource& source, std::size_t n) {
    std::vector<DeviceEvent> out;
    for (int i = 0; i < kMaxWaits && out.size() < n; ++i) {
      DeviceEvent e;
      if (source.wait(50ms, e) == DeviceEventSource::Wait::Event) out.push_back(e);
    }
    return out;
  }

  // The first `n` events of `scenario` (fewer if they do not come); the
  // backend and its source stay open for the test's further waits.
  std::vector<DeviceEvent> scripted(const std::string& scenario, std::size_t n) {
    backend_ = open(scenario);
    source_ = backend_ ? backend_->open_events() : nullptr;
    if (!source_) {
      ADD_FAILURE() << "no event source";
      return {};
    }
    return next_events(*source_, n);
  }

  std::unique_ptr<GpuBackend> backend_;
  std::unique_ptr<DeviceEventSource> source_;
};

TEST_F(NvmlEventsTest, ScriptedXidAndEccErrorsArriveWithTheirDevice) {
  const auto events = scripted("gpu_count=2;gpu1.events=xid:79@0,ecc_double_bit@0.05;gpu0.events=ecc_single_bit@0.1", 3);
  ASSERT_EQ(events.size(), 3U);
  EXPECT_EQ(events[0].local_index, 1U);
  EXPECT_EQ(events[0].kind, "xid");
  EXPECT_EQ(events[0].message, "XID 79: GPU has fallen off the bus");
  EXPECT_EQ(events[1].local_index, 1U);
  EXPECT_EQ(events[1].kind, "ecc_double_bit");
  EXPECT_NE(events[1].message.find("double-bit ECC"), std::string::npos);
  EXPECT_EQ(events[2].local_index, 0U);
  EXPECT_EQ(events[2].kind, "ecc_single_bit");
  EXPECT_GT(events[0].time.mono_ns, 0);
  // Nothing more is scripted: the driver's timeout is the answer.
  DeviceEvent none;
  EXPECT_EQ(source_->wait(10ms, none), DeviceEventSource::Wait::Timeout);
}

TEST_F(NvmlEventsTest, XidOfAMigInstanceSaysWhichInstance) {
  const auto events = scripted("gpu_count=1;gpu0.events=xid:43@0/2.0", 1);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].message, "XID 43: GPU stopped processing (GPU instance 2, compute instance 0)");
}

TEST_F(NvmlEventsTest, OnlySupportedTypesAreRegisteredAndUnsupportedDevicesAreSkipped) {
  // The fake delivers only the types a set registered, so what arrives is
  // what was registered: on GPU 0 its XID only (its ECC errors were not
  // asked for), on GPU 1 (refuses the query) and GPU 2 (supports none)
  // nothing.
  const auto events = scripted("gpu_count=3;gpu0.event_types=xid;"
                               "gpu0.events=ecc_single_bit@0,ecc_double_bit@0,xid:31@0.05;"
                               "gpu1.unsupported=events;gpu1.events=xid:13@0;gpu2.event_types=;gpu2.events=xid:48@0",
                               1);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].local_index, 0U);
  EXPECT_EQ(events[0].message, "XID 31: GPU memory page fault");
  DeviceEvent none;
  EXPECT_EQ(source_->wait(100ms, none), DeviceEventSource::Wait::Timeout);
}

TEST_F(NvmlEventsTest, NoSourceWhereNoDeviceSupportsAnyEvent) {
  auto backend = open("gpu_count=2;gpu*.event_types=");
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->open_events(), nullptr);
  auto refused = open("gpu_count=2;gpu*.unsupported=events");
  ASSERT_NE(refused, nullptr);
  EXPECT_EQ(refused->open_events(), nullptr);
}

TEST_F(NvmlEventsTest, DriverWithoutTheV2WaitHasNoEventsAndStillSamples) {
  auto backend = open("gpu_count=1;gpu0.events=xid:79@0", FAKE_NVML_OLD_PATH);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->open_events(), nullptr);
  DeviceValues v;
  EXPECT_EQ(backend->read_fast(0, v), ReadStatus::Ok);
  EXPECT_TRUE(v.has(DeviceMetric::PowerWatts));
}

TEST_F(NvmlEventsTest, ARefusedWaitIsReportedAsFailed) {
  auto backend = open("gpu_count=1;event_wait_error=999;gpu0.events=xid:79@0");
  ASSERT_NE(backend, nullptr);
  auto source = backend->open_events();
  ASSERT_NE(source, nullptr);
  DeviceEvent e;
  EXPECT_EQ(source->wait(10ms, e), DeviceEventSource::Wait::Failed);
}

TEST(XidMessage, KnownXidsAreNamedOthersGiveTheirNumber) {
  EXPECT_EQ(xid_message(79), "XID 79: GPU has fallen off the bus");
  EXPECT_EQ(xid_message(48), "XID 48: Double Bit ECC Error");
  EXPECT_EQ(xid_message(119), "XID 119: GSP RPC timeout");
  EXPECT_EQ(xid_message(200), "XID 200");
  EXPECT_EQ(xid_message(999), "XID error (the driver did not say which)");
}

// ---- MIG ------------------------------------------------------------------

TEST_F(NvmlEventsTest, MigInstancesAreListedWithTheirFacts) {
  auto backend = open("gpu_count=2;gpu0.mig_mode=1;gpu0.mig_instances=1g.10gb:9856:7:0,3g.40gb:40192:1:0");
  ASSERT_NE(backend, nullptr);
  const auto devices = backend->devices();
  ASSERT_EQ(devices.size(), 2U);
  ASSERT_TRUE(devices[0].mig_enabled.has_value());
  EXPECT_TRUE(*devices[0].mig_enabled);
  ASSERT_EQ(devices[0].mig_instances.size(), 2U);
  const MigInstance& small = devices[0].mig_instances[0];
  EXPECT_EQ(small.name, "NVIDIA H100 80GB HBM3 MIG 1g.10gb");
  EXPECT_EQ(small.uuid.rfind("MIG-", 0), 0U) << small.uuid;
  EXPECT_EQ(small.memory_total_bytes, 9856ULL << 20);
  EXPECT_EQ(small.gpu_instance_id, 7U);
  EXPECT_EQ(small.compute_instance_id, 0U);
  EXPECT_EQ(devices[0].mig_instances[1].memory_total_bytes, 40192ULL << 20);
  EXPECT_NE(devices[0].mig_instances[1].uuid, small.uuid);
  // The whole GPU's own facts are untouched by its instances.
  EXPECT_EQ(devices[0].static_values.get(DeviceMetric::MemTotalBytes), 81559.0 * (1 << 20));
  ASSERT_TRUE(devices[1].mig_enabled.has_value());
  EXPECT_FALSE(*devices[1].mig_enabled);
  EXPECT_TRUE(devices[1].mig_instances.empty());
}

TEST_F(NvmlEventsTest, GpuWithoutMigHasNoMigFacts) {
  auto backend = open("gpu_count=1;gpu0.unsupported=mig");
  ASSERT_NE(backend, nullptr);
  EXPECT_FALSE(backend->devices()[0].mig_enabled.has_value());
  auto old = open("gpu_count=1;gpu0.mig_mode=1;gpu0.mig_instances=1g.10gb:9856:7:0", FAKE_NVML_OLD_PATH);
  ASSERT_NE(old, nullptr);
  EXPECT_FALSE(old->devices()[0].mig_enabled.has_value());
  EXPECT_TRUE(old->devices()[0].mig_instances.empty());
}

}  // namespace
}  // namespace gpuwatch
