// The advisor's memory rules (seed 002's matrix, leaks, drops), warm-up,
// ordering and diff_advisories(). Utilization, balance and hardware rules
// are in advisor_utilization_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "advisor_test_util.h"

namespace gpuwatch {
namespace {

using namespace advisor_test;

Curve busy() {
  return [](double t) { return 90 + 5 * std::sin(t * 1.7); };
}

// One busy GPU of 100 GiB holding `gib` GiB all window long.
RunData holding(double gib) {
  Window w;
  w.gpu(0, busy(), flat(gib * kGiB), 100 * kGiB);
  return w.data;
}

AdvisorConfig with_size(ModelSize size) {
  AdvisorConfig c;
  c.model_size = size;
  return c;
}

TEST(AdvisorMemory, AHealthyRunSaysNothing) {
  Window w;
  w.gpu(0, busy(), flat(60 * kGiB));
  w.gpu(1, [](double t) { return 91 + 4 * std::cos(t); }, flat(61 * kGiB));
  for (int g : {0, 1}) {
    w.set(g, DeviceMetric::ClockEventReasons, flat(0));
    w.set(g, DeviceMetric::PcieLinkGen, flat(5));
    w.set(g, DeviceMetric::PcieLinkWidth, flat(16));
    w.data.devices[static_cast<std::size_t>(g)].info.static_values.set(DeviceMetric::PcieLinkGenMax, 5);
    w.data.devices[static_cast<std::size_t>(g)].info.static_values.set(DeviceMetric::PcieLinkWidthMax, 16);
  }
  w.host(HostMetric::CpuPercent, flat(30));
  w.host(HostMetric::TreeCpuPercent, flat(250));
  w.host(HostMetric::TreeReadBytesPerSec, flat(1e6));
  EXPECT_TRUE(advise_on(w.data).empty()) << ::testing::PrintToString(ids(advise_on(w.data)));
}

TEST(AdvisorMemory, TheMatrixBoundaries) {
  const AdvisorConfig large = with_size(ModelSize::Large);
  // Below 50 %: too small, whatever the model; it is underuse.
  for (ModelSize size : {ModelSize::Auto, ModelSize::Small, ModelSize::Large}) {
    const auto a = advise_on(holding(49), with_size(size));
    ASSERT_EQ(a.size(), 1u) << to_string(size);
    EXPECT_EQ(a[0].id, "memory.batch_too_small");
    EXPECT_EQ(a[0].severity, Severity::Warning);
    EXPECT_TRUE(a[0].underuse);
    EXPECT_EQ(a[0].device_index, 0);
    EXPECT_NE(a[0].summary.find("49 % of 100.0 GiB"), std::string::npos) << a[0].summary;
    EXPECT_NE(a[0].suggestion.find("2x"), std::string::npos);
    ASSERT_TRUE(evidence(a[0], "mem_used_p95_percent"));
    EXPECT_DOUBLE_EQ(evidence(a[0], "mem_used_p95_percent")->value, 49);
    EXPECT_EQ(evidence(a[0], "mem_used_p95_percent")->unit, "percent");
  }
  // 50 %: a large model's batch could grow 1.5x; optional, so not underuse.
  const auto at50 = advise_on(holding(50), large);
  ASSERT_EQ(at50.size(), 1u);
  EXPECT_EQ(at50[0].id, "memory.batch_could_grow");
  EXPECT_EQ(at50[0].severity, Severity::Info);
  EXPECT_FALSE(at50[0].underuse);
  EXPECT_NE(at50[0].suggestion.find("1.5x"), std::string::npos);
  EXPECT_TRUE(advise_on(holding(69), large).size() == 1);
  // 70 and 90 %: the target band; above 90 %: near out-of-memory.
  EXPECT_TRUE(advise_on(holding(70), large).empty());
  EXPECT_TRUE(advise_on(holding(90), large).empty());
  const auto at91 = advise_on(holding(91), large);
  ASSERT_EQ(at91.size(), 1u);
  EXPECT_EQ(at91[0].id, "memory.near_oom");
  EXPECT_FALSE(at91[0].underuse);
}

TEST(AdvisorMemory, TheMatrixUsesTheWindowsHighLevelNotItsMean) {
  // 40 GiB most of the time, 75 GiB for 10 % of it (a phase with bigger
  // batches): the mean is under 50 %, the p95 is in the target band.
  Window w;
  w.gpu(0, busy(), [](double t) { return (t > 20 && t < 28 ? 75 : 40) * kGiB; }, 100 * kGiB);
  EXPECT_EQ(find(advise_on(w.data), "memory.batch_too_small"), nullptr);
}

TEST(AdvisorMemory, ModelSizeFromTheFlagOrTheParameterCount) {
  // 60 %: fine for a small model, could grow for a large one (seed 002).
  EXPECT_TRUE(advise_on(holding(60), with_size(ModelSize::Small)).empty());
  EXPECT_TRUE(find(advise_on(holding(60), with_size(ModelSize::Large)), "memory.batch_could_grow"));
  // Unknown size: said, with a hint how to tell.
  const auto unknown = advise_on(holding(60));
  ASSERT_TRUE(find(unknown, "memory.batch_could_grow"));
  EXPECT_NE(unknown[0].summary.find("if the model is large"), std::string::npos);
  EXPECT_NE(unknown[0].suggestion.find("--model-size"), std::string::npos);

  RunData big = holding(60);
  const auto log = [](RunData& d, const std::string& message) {
    d.events.push_back({{kStartMono + kSec, 0}, std::nullopt, "log", message});
  };
  log(big, "loss=2.5 model_params=11689512");   // ResNet-18: small
  log(big, "loss=2.1");                          // a later log without the count
  log(big, "model_params=86000000 lr=0.001");   // the latest count wins: ViT-Base, large
  const auto a = advise_on(big);
  ASSERT_TRUE(find(a, "memory.batch_could_grow"));
  EXPECT_NE(a[0].summary.find("a large model's batch"), std::string::npos);
  ASSERT_TRUE(evidence(a[0], "model_params"));
  EXPECT_DOUBLE_EQ(evidence(a[0], "model_params")->value, 86e6);

  RunData small = holding(60);
  log(small, "model_params=11689512");
  EXPECT_TRUE(advise_on(small).empty());
  // The flag wins over the annotation.
  EXPECT_TRUE(find(advise_on(big, with_size(ModelSize::Small)), "memory.batch_could_grow") == nullptr);
  // The line between small and large is a setting.
  AdvisorConfig low_line;
  low_line.large_model_params = 10e6;
  EXPECT_TRUE(find(advise_on(small, low_line), "memory.batch_could_grow"));
}

TEST(AdvisorMemory, NoVerdictDuringTheWarmUp) {
  Window w;
  w.gpu(0, flat(12), flat(20 * kGiB));
  EXPECT_TRUE(advise_on(w.data, {}, 59).empty());
  const auto after = advise_on(w.data, {}, 61);
  EXPECT_TRUE(find(after, "memory.batch_too_small"));
  EXPECT_TRUE(find(after, "util.low"));
  AdvisorConfig no_warmup;
  no_warmup.warmup_s = 0;
  EXPECT_FALSE(advise_on(w.data, no_warmup, 59).empty());
}

TEST(AdvisorMemory, AGpuTheRunDoesNotUseIsLeftAlone) {
  // GPU 1 never works and holds less than a CUDA context: not the run's;
  // no "batch too small", no low utilization, no imbalance.
  Window w;
  w.gpu(0, busy(), flat(60 * kGiB));
  w.gpu(1, flat(0), flat(0.6 * kGiB));
  EXPECT_TRUE(advise_on(w.data).empty());
  // Holding memory, it is the run's even while it reads 0 % (a starved
  // loop; the driver lists no processes in many containers).
  w.set(1, DeviceMetric::MemUsedBytes, flat(1.6 * kGiB));
  auto a = advise_on(w.data);
  EXPECT_TRUE(find(a, "memory.batch_too_small", 1));
  EXPECT_TRUE(find(a, "util.input_bound", 1)) << ::testing::PrintToString(ids(a));
  // Where the driver lists processes, they decide: GPU 1 runs someone
  // else's job, GPU 0 the run's.
  w.data.processes.push_back({0, 4242, "python", 0, 0, std::nullopt, std::nullopt, 0, 0, {}});
  EXPECT_TRUE(advise_on(w.data).empty());
  w.data.processes.push_back({1, 4243, "python", 0, 0, std::nullopt, std::nullopt, 0, 0, {}});
  a = advise_on(w.data);
  EXPECT_TRUE(find(a, "util.input_bound", 1));
}

TEST(AdvisorMemory, OnlyTheJobsGpusAreJudged) {
  // Issue 9: on a shared node GPU 1 is another job's, idle with its model
  // loaded; the run's own GPU 0 works. The processes listed on GPU 1 are not
  // the command's, so GPU 1 must not be judged (nor stop the run).
  Window w;
  w.gpu(0, busy(), flat(60 * kGiB));
  w.gpu(1, flat(0), flat(20 * kGiB));
  w.data.processes.push_back({0, 100, "python", 0, 0, std::nullopt, std::nullopt, 0, 0, {}});
  w.data.processes.push_back({1, 4243, "python", 0, 0, std::nullopt, std::nullopt, 0, 0, {}});
  ASSERT_TRUE(find(advise_on(w.data), "util.input_bound", 1));  // without the recorder's decision
  w.event(0, "job_gpus", "source=process_tree gpus=0");
  EXPECT_TRUE(advise_on(w.data).empty()) << ::testing::PrintToString(ids(advise_on(w.data)));
  // CUDA_VISIBLE_DEVICES=1: GPU 1 is the job's, however idle.
  w.event(1, "job_gpus", "source=cuda_visible_devices gpus=1");
  EXPECT_TRUE(find(advise_on(w.data), "util.input_bound", 1));
  EXPECT_FALSE(find(advise_on(w.data), "memory.batch_could_grow", 0));
  // Until the command shows on a GPU, every active one is judged, but not
  // one nobody uses.
  w.event(2, "job_gpus", "source=command_not_seen gpus=0,1");
  w.set(1, DeviceMetric::MemUsedBytes, flat(0.5 * kGiB));
  EXPECT_TRUE(advise_on(w.data).empty());
}

// A run of `epochs` epochs of `epoch_s` seconds each, memory from `mem`;
// the last epoch event opens an epoch that is still running.
RunData with_epochs(int epochs, double epoch_s, const Curve& mem) {
  Window w(epochs * epoch_s + epoch_s / 2);
  w.gpu(0, busy(), mem);
  for (int e = 0; e < epochs; ++e) w.event(e * epoch_s, "epoch", std::to_string(e));
  return w.data;
}

TEST(AdvisorMemory, EpochPeaksLeaveTheOpenEpochOut) {
  // Memory climbs 1 GiB per second: each 5 s epoch peaks at its last sample.
  const RunData d = with_epochs(4, 5, [](double t) { return (10 + t) * kGiB; });
  const auto peaks = epoch_peaks(d);
  ASSERT_EQ(peaks.size(), 3u);  // epoch 3 is still open
  EXPECT_EQ(peaks[0].label, "0");
  EXPECT_EQ(peaks[2].label, "2");
  EXPECT_EQ(peaks[1].start_mono_ns, kStartMono + 5 * kSec);
  EXPECT_EQ(peaks[1].end_mono_ns, kStartMono + 10 * kSec);
  ASSERT_EQ(peaks[1].devices.size(), 1u);
  EXPECT_EQ(peaks[1].devices[0].device_index, 0);
  EXPECT_DOUBLE_EQ(peaks[1].devices[0].peak_bytes, 19.5 * kGiB);  // the sample at 9.5 s
  EXPECT_TRUE(epoch_peaks(with_epochs(1, 5, flat(kGiB))).empty());
}

TEST(AdvisorMemory, PeaksGrowingEveryEpochAreALeak) {
  // +0.5 GiB per 5 s epoch (6 GiB a minute, like tensors kept in a list).
  const RunData d = with_epochs(12, 5, [](double t) { return (20 + 0.1 * t) * kGiB; });
  const auto peaks = epoch_peaks(d);
  const auto a = advise_on(d, {}, 600, peaks);
  const Advisory* leak = find(a, "memory.leak");
  ASSERT_TRUE(leak) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(leak->severity, Severity::Warning);
  EXPECT_FALSE(leak->underuse);
  EXPECT_DOUBLE_EQ(evidence(*leak, "epochs_growing")->value, 11);
  EXPECT_NEAR(evidence(*leak, "growth_per_epoch_bytes")->value, 0.5 * kGiB, 1);
  EXPECT_NE(leak->summary.find("0 to 10"), std::string::npos) << leak->summary;
  ASSERT_TRUE(evidence(*leak, "epochs_to_full"));
  // The window trend is not asked when epochs decide.
  EXPECT_EQ(find(a, "memory.growing"), nullptr);
}

TEST(AdvisorMemory, ALeakNearTheLimitIsCritical) {
  const RunData d = with_epochs(6, 5, [](double t) { return (70 + 0.2 * t) * kGiB; });
  const auto a = advise_on(d, {}, 600, epoch_peaks(d));
  const Advisory* leak = find(a, "memory.leak");
  ASSERT_TRUE(leak);
  EXPECT_EQ(leak->severity, Severity::Critical);
  EXPECT_EQ(a[0].id, "memory.leak");  // the most severe comes first
}

TEST(AdvisorMemory, AllocatingInTheFirstEpochThenHoldingIsNoLeak) {
  // 2 GiB -> 30 GiB over the first epoch (model, optimizer state, the
  // allocator's cache), a little more in the second, then flat.
  const RunData d = with_epochs(10, 5, [](double t) { return (t < 5 ? 2 + 5.6 * t : t < 10 ? 30 + 0.2 * (t - 5) : 31) * kGiB; });
  const auto a = advise_on(d, {}, 600, epoch_peaks(d));
  EXPECT_EQ(find(a, "memory.leak"), nullptr) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(find(a, "memory.growing"), nullptr);
}

TEST(AdvisorMemory, TooFewGrowingEpochsOrTooLittleGrowthIsNoLeak) {
  // Two growing epochs only.
  const RunData two = with_epochs(3, 5, [](double t) { return (20 + 0.2 * t) * kGiB; });
  EXPECT_EQ(find(advise_on(two, {}, 600, epoch_peaks(two)), "memory.leak"), nullptr);
  // 100 MiB per epoch over 5 epochs: 400 MiB, under 2 % of 80 GiB.
  const RunData slow = with_epochs(6, 5, [](double t) { return 20 * kGiB + t * 20 * 1024 * 1024; });
  EXPECT_EQ(find(advise_on(slow, {}, 600, epoch_peaks(slow)), "memory.leak"), nullptr);
}

TEST(AdvisorMemory, SteadyGrowthInTheWindowWithoutEpochs) {
  Window w;  // 60 s, +3 GiB (3.75 % of 80 GiB)
  w.gpu(0, busy(), [](double t) { return (30 + t / 20) * kGiB; });
  const auto a = advise_on(w.data);
  const Advisory* g = find(a, "memory.growing");
  ASSERT_TRUE(g) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(g->severity, Severity::Warning);
  EXPECT_NEAR(evidence(*g, "slope_bytes_per_minute")->value, 3 * kGiB, 0.05 * kGiB);
  EXPECT_EQ(evidence(*g, "slope_bytes_per_minute")->unit, "bytes_per_minute");
}

TEST(AdvisorMemory, OneStepUpIsNotSteadyGrowth) {
  // +4 GiB at once, 40 s into the window (validation's first batch).
  Window w;
  w.gpu(0, busy(), [](double t) { return (t < 40 ? 30 : 34) * kGiB; });
  EXPECT_EQ(find(advise_on(w.data), "memory.growing"), nullptr);
}

TEST(AdvisorMemory, ASuddenDrop) {
  Window w;
  w.gpu(0, busy(), [](double t) { return (t < 30 ? 60 : 40) * kGiB; });
  const auto a = advise_on(w.data);
  const Advisory* drop = find(a, "memory.drop");
  ASSERT_TRUE(drop) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(drop->severity, Severity::Info);
  EXPECT_DOUBLE_EQ(evidence(*drop, "from_bytes")->value, 60 * kGiB);
  EXPECT_DOUBLE_EQ(evidence(*drop, "to_bytes")->value, 40 * kGiB);
  EXPECT_NEAR(evidence(*drop, "seconds_ago")->value, 30.5, 0.01);
  // A drop under 5 % of the device is not worth saying.
  Window small;
  small.gpu(0, busy(), [](double t) { return (t < 30 ? 6 : 3) * kGiB; });
  EXPECT_EQ(find(advise_on(small.data), "memory.drop"), nullptr);
}

Advisory made(std::string id, Severity s, std::optional<int> device, double value = 1) {
  return {std::move(id), s, device, "summary", {{"x", value, "count"}}, "suggestion", false};
}

TEST(AdvisoryDiff, AppearedChangedClearedAndUnchanged) {
  const std::vector<Advisory> before{made("util.low", Severity::Warning, 0), made("memory.leak", Severity::Warning, 0),
                                     made("memory.near_oom", Severity::Info, 1), made("balance.imbalance", Severity::Warning, std::nullopt)};
  const std::vector<Advisory> after{made("memory.leak", Severity::Critical, 0), made("util.low", Severity::Warning, 0, 7),
                                    made("memory.near_oom", Severity::Info, 0), made("balance.imbalance", Severity::Warning, std::nullopt)};
  const auto changes = diff_advisories(before, after);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].kind, ChangeKind::SeverityChanged);
  EXPECT_EQ(changes[0].advisory.id, "memory.leak");
  EXPECT_EQ(changes[0].advisory.severity, Severity::Critical);
  EXPECT_EQ(changes[0].previous_severity, Severity::Warning);
  EXPECT_EQ(changes[1].kind, ChangeKind::Appeared);  // near_oom on GPU 0 is not near_oom on GPU 1
  EXPECT_EQ(changes[1].advisory.device_index, 0);
  EXPECT_EQ(changes[2].kind, ChangeKind::Cleared);
  EXPECT_EQ(changes[2].advisory.device_index, 1);
  EXPECT_TRUE(diff_advisories(after, after).empty());
  EXPECT_EQ(diff_advisories({}, after).size(), after.size());
}

}  // namespace
}  // namespace gpuwatch
