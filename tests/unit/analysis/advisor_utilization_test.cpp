// The advisor's utilization rules (seed 004: low utilization and its cause),
// balance between GPUs, throttling and the PCIe link.
#include <gtest/gtest.h>

#include <cmath>

#include "advisor_test_util.h"

namespace gpuwatch {
namespace {

using namespace advisor_test;

// What NVML reads for a loop that runs `burst_s` of GPU work at the start
// of every batch (one each `period_s`) and then waits for its input: the
// driver reports the share of its last complete ~167 ms averaging window in
// which a kernel ran, in whole percent. Sampled every 0.5 s, most readings
// see no burst. A period of exactly 1 s catches a burst every other sample;
// 1.037 s drifts against the sampling and catches one now and then.
Curve starved(double burst_s, double period_s) {
  return [burst_s, period_s](double t) {
    constexpr double kDriverWindow = 0.167;
    constexpr double kBatchStart = 0.3;  // into each period
    const double end = std::floor(t / kDriverWindow) * kDriverWindow;
    const double begin = end - kDriverWindow;
    double busy = 0;
    for (double n = std::floor(begin / period_s) - 1; n <= end / period_s + 1; n += 1) {
      const double a = std::max(begin, n * period_s + kBatchStart);
      const double b = std::min(end, n * period_s + kBatchStart + burst_s);
      busy += std::max(0.0, b - a);
    }
    return std::floor(busy / kDriverWindow * 100);
  };
}

Curve fast_fed() {
  return [](double t) { return 85 + 14 * std::abs(std::sin(t * 0.9)); };
}

Window quiet_host() {
  Window w;
  w.host(HostMetric::CpuPercent, flat(6));
  w.host(HostMetric::TreeCpuPercent, flat(12));
  w.host(HostMetric::TreeReadBytesPerSec, flat(2e6));
  return w;
}

std::size_t nonzero(const RunData& d) {
  std::size_t n = 0;
  for (double v : d.devices[0].values[static_cast<std::size_t>(DeviceMetric::GpuUtilPercent)]) n += v > 0;
  return n;
}

bool any_util_advisory(const std::vector<Advisory>& a) {
  return std::any_of(a.begin(), a.end(), [](const Advisory& x) { return x.id.starts_with("util."); });
}

void expect_input_bound(const std::vector<Advisory>& a) {
  const Advisory* input = find(a, "util.input_bound");
  ASSERT_TRUE(input) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(input->severity, Severity::Warning);
  EXPECT_TRUE(input->underuse);
  EXPECT_EQ(find(a, "util.low"), nullptr);
  EXPECT_EQ(find(a, "util.host_bound"), nullptr);
  EXPECT_NE(input->summary.find("waits for its input"), std::string::npos) << input->summary;
  EXPECT_NE(input->suggestion.find("num_workers"), std::string::npos);
  ASSERT_TRUE(evidence(*input, "idle_gaps"));
  EXPECT_GE(evidence(*input, "idle_gaps")->value, 3);
}

TEST(AdvisorUtilization, AStarvedLoaderIsInputBound) {
  for (double period_s : {1.0, 1.037}) {
    SCOPED_TRACE(period_s);
    Window w = quiet_host();
    w.gpu(0, starved(0.010, period_s), flat(20 * kGiB));
    ASSERT_GE(nonzero(w.data), 5u);  // the bursts are seen now and then
    expect_input_bound(advise_on(w.data));
  }
}

TEST(AdvisorUtilization, AStarvedLoaderThatNeverReadsFivePercentIsStillInputBound) {
  // 5 ms bursts read at most 2 %: the report's idle-gap detector sees no
  // busy sample at all, yet the work comes and goes.
  for (double period_s : {1.0, 1.037}) {
    SCOPED_TRACE(period_s);
    Window w = quiet_host();
    w.gpu(0, starved(0.005, period_s), flat(20 * kGiB));
    ASSERT_GE(nonzero(w.data), 5u);
    ASSERT_FALSE(build_report(w.data).devices[0].idle_gaps.has_value());
    const auto a = advise_on(w.data);
    expect_input_bound(a);
    if (const Advisory* input = find(a, "util.input_bound")) {
      EXPECT_NE(input->summary.find("bursts"), std::string::npos) << input->summary;
    }
  }
}

TEST(AdvisorUtilization, AFastFedLoopIsNotInputBound) {
  Window w = quiet_host();
  w.gpu(0, fast_fed(), flat(60 * kGiB));
  EXPECT_FALSE(any_util_advisory(advise_on(w.data)));
  // Even with a busy process tree and brief dips (the loop's own steps).
  w.host(HostMetric::TreeCpuPercent, flat(400));
  w.set(0, DeviceMetric::GpuUtilPercent, [](double t) { return std::fmod(t, 5) < 0.5 ? 0 : 95; });
  EXPECT_FALSE(any_util_advisory(advise_on(w.data)));
}

TEST(AdvisorUtilization, LowForOnlyPartOfTheWindowIsNotSustained) {
  // Mean 27 % (under 30) but below 30 % only 40 % of the time: a pause, not
  // a starved loop.
  Window w = quiet_host();
  w.gpu(0, [](double t) { return t < 24 ? 0.0 : 45.0; }, flat(60 * kGiB));
  EXPECT_FALSE(any_util_advisory(advise_on(w.data)));
}

TEST(AdvisorUtilization, ABusyProcessTreeOrHeavyReadsMeanInputBound) {
  // Steady 15 %, never idle: no gaps to go by.
  Window cpu = quiet_host();
  cpu.gpu(0, [](double t) { return 15 + 3 * std::sin(t); }, flat(60 * kGiB));
  cpu.host(HostMetric::TreeCpuPercent, flat(99));
  const auto a = advise_on(cpu.data);
  ASSERT_TRUE(find(a, "util.input_bound")) << ::testing::PrintToString(ids(a));
  EXPECT_NE(find(a, "util.input_bound")->summary.find("99 % of a core"), std::string::npos);

  Window reads = quiet_host();
  reads.gpu(0, [](double t) { return 15 + 3 * std::sin(t); }, flat(60 * kGiB));
  reads.host(HostMetric::TreeReadBytesPerSec, flat(300.0 * 1024 * 1024));
  const auto b = advise_on(reads.data);
  ASSERT_TRUE(find(b, "util.input_bound")) << ::testing::PrintToString(ids(b));
  EXPECT_NE(find(b, "util.input_bound")->summary.find("300 MiB/s"), std::string::npos);
}

TEST(AdvisorUtilization, EveryCoreBusyIsHostBound) {
  Window w = quiet_host();
  w.gpu(0, starved(0.010, 1.037), flat(60 * kGiB));
  w.host(HostMetric::CpuPercent, flat(97));
  const auto a = advise_on(w.data);
  const Advisory* host = find(a, "util.host_bound");
  ASSERT_TRUE(host) << ::testing::PrintToString(ids(a));
  EXPECT_TRUE(host->underuse);
  EXPECT_EQ(find(a, "util.input_bound"), nullptr);
  EXPECT_DOUBLE_EQ(evidence(*host, "host_cpu_percent")->value, 97);
}

TEST(AdvisorUtilization, AGpuIdleAllWindowLongIsInputBound) {
  // Never a reading at the idle line (5 %), no bursts: the job holds the
  // GPU and leaves it idle, so its time goes to feeding it.
  Window w = quiet_host();
  w.gpu(0, flat(0), flat(20 * kGiB));
  const auto a = advise_on(w.data);
  const Advisory* input = find(a, "util.input_bound");
  ASSERT_TRUE(input) << ::testing::PrintToString(ids(a));
  EXPECT_NE(input->summary.find("over 60 s, idle all along: the GPU waits"), std::string::npos) << input->summary;
  EXPECT_EQ(find(a, "util.low"), nullptr);
  // With every core busy it is the host that cannot keep up.
  w.host(HostMetric::CpuPercent, flat(95));
  EXPECT_TRUE(find(advise_on(w.data), "util.host_bound"));
}

TEST(AdvisorUtilization, LowWithoutASignIsLowOfUnknownCause) {
  Window w = quiet_host();
  w.gpu(0, [](double t) { return 20 + 2 * std::sin(t); }, flat(60 * kGiB));
  const auto a = advise_on(w.data);
  const Advisory* low = find(a, "util.low");
  ASSERT_TRUE(low) << ::testing::PrintToString(ids(a));
  EXPECT_TRUE(low->underuse);
  EXPECT_NE(low->suggestion.find("batch size"), std::string::npos);
  EXPECT_NE(low->suggestion.find("SM-activity"), std::string::npos);
}

TEST(AdvisorUtilization, ThresholdsComeFromTheConfig) {
  Window w = quiet_host();
  w.gpu(0, [](double t) { return 20 + 2 * std::sin(t); }, flat(60 * kGiB));
  AdvisorConfig c;
  c.util_low_percent = 10;
  EXPECT_FALSE(any_util_advisory(advise_on(w.data, c)));
  c = {};
  c.host_cpu_percent = 5;  // the quiet host's 6 % is now "every core busy"
  EXPECT_TRUE(find(advise_on(w.data, c), "util.host_bound"));
}

TEST(AdvisorBalance, AStragglerAmongFour) {
  Window w;
  for (int g = 0; g < 3; ++g) w.gpu(g, [g](double t) { return 90 + g + 3 * std::sin(t); }, flat(60 * kGiB));
  w.gpu(3, [](double t) { return 50 + 3 * std::sin(t); }, flat(60 * kGiB));
  const auto a = advise_on(w.data);
  const Advisory* s = find(a, "balance.straggler", 3);
  ASSERT_TRUE(s) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(s->severity, Severity::Warning);
  EXPECT_NEAR(evidence(*s, "others_util_mean_percent")->value, 91, 0.5);
  EXPECT_EQ(find(a, "balance.imbalance", std::nullopt), nullptr);  // the straggler explains it
}

TEST(AdvisorBalance, TwoGpusFarApartAreImbalanced) {
  Window w;
  w.gpu(0, flat(92), flat(60 * kGiB));
  w.gpu(1, flat(45), flat(60 * kGiB));
  const auto a = advise_on(w.data);
  const Advisory* b = find(a, "balance.imbalance", std::nullopt);
  ASSERT_TRUE(b) << ::testing::PrintToString(ids(a));
  EXPECT_GE(evidence(*b, "cv_percent")->value, 20);
  EXPECT_EQ(evidence(*b, "gpus")->value, 2);
}

TEST(AdvisorBalance, BalancedOrAllIdleGpusAreNotImbalanced) {
  Window busy;
  for (int g = 0; g < 4; ++g) busy.gpu(g, [g](double t) { return 88 + g * 2 + std::sin(t); }, flat(60 * kGiB));
  EXPECT_TRUE(advise_on(busy.data).empty());
  // 12 % and 20 %: a CV of 25 %, but that is low utilization, not imbalance.
  Window idle = quiet_host();
  idle.gpu(0, flat(12), flat(60 * kGiB));
  idle.gpu(1, flat(20), flat(60 * kGiB));
  const auto a = advise_on(idle.data);
  EXPECT_EQ(find(a, "balance.imbalance", std::nullopt), nullptr);
  EXPECT_TRUE(find(a, "util.low", 0));
  EXPECT_TRUE(find(a, "util.low", 1));
}

TEST(AdvisorHardware, PowerAndThermalThrottling) {
  Window w;
  w.gpu(0, flat(97), flat(60 * kGiB));
  // sw_power_cap half of the time, sw_thermal_slowdown a tenth of it.
  w.set(0, DeviceMetric::ClockEventReasons, [](double t) { return std::fmod(t, 10) < 1 ? 0x20 | 0x4 : std::fmod(t, 2) < 1 ? 0x4 : 0x1; });
  w.set(0, DeviceMetric::TempGpuCelsius, flat(87));
  const auto a = advise_on(w.data);
  const Advisory* power = find(a, "throttle.power");
  const Advisory* heat = find(a, "throttle.thermal");
  ASSERT_TRUE(power && heat) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(power->severity, Severity::Info);
  EXPECT_EQ(heat->severity, Severity::Warning);
  EXPECT_NEAR(evidence(*power, "power_throttled_percent")->value, 50, 2);
  EXPECT_NEAR(evidence(*heat, "thermal_throttled_percent")->value, 10, 2);
  EXPECT_DOUBLE_EQ(evidence(*heat, "temp_max_celsius")->value, 87);
  EXPECT_FALSE(evidence(*heat, "junction_max_celsius"));  // no junction sensor (NVIDIA)
  w.set(0, DeviceMetric::TempJunctionCelsius, flat(104));
  const auto amd = advise_on(w.data);
  const Advisory* amd_heat = find(amd, "throttle.thermal");
  ASSERT_TRUE(amd_heat);
  EXPECT_DOUBLE_EQ(evidence(*amd_heat, "junction_max_celsius")->value, 104);
  EXPECT_EQ(a[0].id, "throttle.thermal");  // warnings before info
  // Idle clocks (gpu_idle) are no throttling.
  w.set(0, DeviceMetric::ClockEventReasons, flat(0x1));
  EXPECT_TRUE(advise_on(w.data).empty());
}

TEST(AdvisorHardware, ThrottlingIsReportedDuringTheWarmUp) {
  Window w;
  w.gpu(0, flat(97), flat(10 * kGiB));
  w.set(0, DeviceMetric::ClockEventReasons, flat(0x40));  // hw_thermal_slowdown
  const auto a = advise_on(w.data, {}, 20);
  ASSERT_EQ(a.size(), 1u) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(a[0].id, "throttle.thermal");
}

TEST(AdvisorHardware, ADegradedPcieLink) {
  Window w;
  w.gpu(0, flat(97), flat(60 * kGiB));
  auto& info = w.data.devices[0].info.static_values;
  info.set(DeviceMetric::PcieLinkGenMax, 5);
  info.set(DeviceMetric::PcieLinkWidthMax, 16);
  w.set(0, DeviceMetric::PcieLinkGen, flat(3));
  w.set(0, DeviceMetric::PcieLinkWidth, flat(8));
  const auto a = advise_on(w.data);
  const Advisory* p = find(a, "pcie.degraded");
  ASSERT_TRUE(p) << ::testing::PrintToString(ids(a));
  EXPECT_NE(p->summary.find("gen 3 x8"), std::string::npos) << p->summary;
  EXPECT_NE(p->summary.find("gen 5 x16"), std::string::npos);
  EXPECT_EQ(evidence(*p, "width")->unit, "lanes");
  w.set(0, DeviceMetric::PcieLinkGen, flat(5));
  w.set(0, DeviceMetric::PcieLinkWidth, flat(16));
  EXPECT_TRUE(advise_on(w.data).empty());
}

}  // namespace
}  // namespace gpuwatch

namespace gpuwatch {
namespace {

using namespace advisor_test;

// Issue 23: a starved loader with a small memory share was headed
// memory.batch_too_small ("try about 2x the batch size"): the wrong fix
// while the GPU waits for its data. The wait comes first and explains it.
TEST(AdvisorCauses, AnInputBoundGpuIsNotToldToRaiseItsBatchFirst) {
  Window w = quiet_host();
  w.gpu(0, starved(0.010, 1.0), flat(6 * kGiB));
  const auto a = advise_on(w.data);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a.front().id, "util.input_bound") << ::testing::PrintToString(ids(a));
  EXPECT_EQ(a.front().action, "feed_faster");
  const Advisory* batch = find(a, "memory.batch_too_small");
  ASSERT_TRUE(batch) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(batch->severity, Severity::Info);
  EXPECT_EQ(batch->explained_by, (AdvisoryRef{"util.input_bound", 0}));
  EXPECT_TRUE(batch->suggestion.starts_with("Once the input keeps up: ")) << batch->suggestion;
}

}  // namespace
}  // namespace gpuwatch
