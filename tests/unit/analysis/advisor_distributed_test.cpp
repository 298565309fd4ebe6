// The advisor on multi-GPU jobs (issue 23): a GPU waiting in a collective
// told apart from one running small kernels, the rank waited for named
// with its cause, and hangs. The shapes are the H200's: a GPU waiting in an
// NCCL all-reduce reads utilization ~100 % with its SMs 18-20 % active.
#include <algorithm>

#include <gtest/gtest.h>

#include "advisor_test_util.h"
#include "core/throttle_reasons.h"

namespace gpuwatch {
namespace {

using namespace advisor_test;

constexpr double kNvlinkBusy = 20.0 * kGiB;  // bytes/s, an all-reduce moving gradients

// A GPU waiting in a collective (util 100 %, SMs 19 %), or one at `util`
// with `sm` active; links at `link_bytes_per_s` (tx and rx each half).
void gpu(Window& w, int index, double util, double sm, double link_bytes_per_s = 0) {
  w.gpu(index, flat(util), flat(40 * kGiB));
  w.set(index, DeviceMetric::SmActivePercent, flat(sm));
  w.set(index, DeviceMetric::NvlinkTxBytesPerSec, flat(link_bytes_per_s / 2));
  w.set(index, DeviceMetric::NvlinkRxBytesPerSec, flat(link_bytes_per_s / 2));
  w.set(index, DeviceMetric::PcieTxBytesPerSec, flat(1e6));
  w.set(index, DeviceMetric::PcieRxBytesPerSec, flat(2e6));
}

std::string all_ids(const std::vector<Advisory>& a) { return ::testing::PrintToString(ids(a)); }

// Three ranks wait (100 %, SMs 19 %) for the fourth, 30 % busy on its own work.
Window straggler_job() {
  Window w;
  w.host(HostMetric::CpuPercent, flat(20));
  for (int i = 0; i < 3; ++i) gpu(w, i, 100, 19);
  gpu(w, 3, 30, 25);
  return w;
}

TEST(AdvisorDistributed, WaitingPeersAreCollectiveWaitNotLaunchBound) {
  const auto a = advise_on(straggler_job().data);
  for (int i = 0; i < 3; ++i) {
    const Advisory* wait = find(a, "util.collective_wait", i);
    ASSERT_TRUE(wait) << i << all_ids(a);
    EXPECT_FALSE(find(a, "util.launch_bound", i)) << i;
    EXPECT_EQ(evidence(*wait, "waits_for_gpu")->value, 3);
    EXPECT_DOUBLE_EQ(evidence(*wait, "sm_active_median_percent")->value, 19);
    EXPECT_EQ(wait->explained_by, (AdvisoryRef{"balance.straggler", 3})) << i;
    EXPECT_EQ(wait->action, "find_straggler");
  }
  const Advisory* s = find(a, "balance.straggler", 3);
  ASSERT_TRUE(s) << all_ids(a);
  EXPECT_EQ(s->action, "fix_straggler");
  EXPECT_EQ(std::count_if(s->explains.begin(), s->explains.end(),
                          [](const AdvisoryRef& r) { return r.id == "util.collective_wait"; }),
            3);
  // Not throttled, its process there, the host idle: its own work.
  EXPECT_NE(s->summary.find("its rank's own work"), std::string::npos) << s->summary;
  EXPECT_EQ(a.front().id, "balance.straggler");  // the cause first
}

TEST(AdvisorDistributed, TheStragglersThrottleIsItsCause) {
  Window w = straggler_job();
  w.set(3, DeviceMetric::ClockEventReasons, flat(static_cast<double>(kThrottleHwThermal)));
  auto a = advise_on(w.data);
  const Advisory* s = find(a, "balance.straggler", 3);
  ASSERT_TRUE(s) << all_ids(a);
  EXPECT_NE(s->summary.find("held down by heat 100 %"), std::string::npos) << s->summary;
  EXPECT_DOUBLE_EQ(evidence(*s, "thermal_throttled_percent")->value, 100);
  EXPECT_EQ(s->explained_by, (AdvisoryRef{"throttle.thermal", 3}));
  // The chain: heat -> the straggler -> the others' waits.
  EXPECT_EQ(find(a, "util.collective_wait", 0)->explained_by, (AdvisoryRef{"balance.straggler", 3}));
  EXPECT_EQ(a.front().id, "throttle.thermal");

  Window p = straggler_job();
  p.set(3, DeviceMetric::ClockEventReasons, flat(static_cast<double>(kThrottleSwPowerCap)));
  a = advise_on(p.data);
  s = find(a, "balance.straggler", 3);
  ASSERT_TRUE(s) << all_ids(a);
  EXPECT_NE(s->summary.find("power limit"), std::string::npos) << s->summary;
  EXPECT_EQ(s->explained_by, (AdvisoryRef{"throttle.power", 3}));
}

TEST(AdvisorDistributed, TheStragglersGoneProcessAndBusyHostAreNamed) {
  Window w = straggler_job();
  w.host(HostMetric::CpuPercent, flat(97));
  for (int i = 0; i < 4; ++i) {
    ProcessRecord p;
    p.device_index = i;
    p.pid = 100 + static_cast<std::uint32_t>(i);
    p.first_seen_wall_ns = w.data.run.start_wall_ns;
    // Rank 3's process was last listed 30 s before the end.
    p.last_seen_wall_ns = w.data.run.start_wall_ns + (i == 3 ? 30 : 60) * kSec;
    w.data.processes.push_back(p);
  }
  const auto a = advise_on(w.data);
  const Advisory* s = find(a, "balance.straggler", 3);
  ASSERT_TRUE(s) << all_ids(a);
  EXPECT_NE(s->summary.find("its process gone (30 s ago)"), std::string::npos) << s->summary;
  EXPECT_NE(s->summary.find("the host's CPUs 97 % busy"), std::string::npos) << s->summary;
  EXPECT_DOUBLE_EQ(evidence(*s, "process_gone_s")->value, 30);
  EXPECT_DOUBLE_EQ(evidence(*s, "host_cpu_percent")->value, 97);
}

// Two GPUs: the balance detector names no straggler; the wait does.
TEST(AdvisorDistributed, TwoGpusTheWaitNamesTheRankWaitedFor) {
  Window w;
  gpu(w, 0, 100, 19);
  gpu(w, 1, 0, 0);
  const auto a = advise_on(w.data);
  ASSERT_TRUE(find(a, "util.collective_wait", 0)) << all_ids(a);
  const Advisory* s = find(a, "balance.straggler", 1);
  ASSERT_TRUE(s) << all_ids(a);
  EXPECT_NE(s->summary.find("the other 1 GPU reads 100 %"), std::string::npos) << s->summary;
  EXPECT_NE(s->summary.find("idle"), std::string::npos) << s->summary;
}

TEST(AdvisorDistributed, AllWaitingWithSilentLinksIsACollectiveWait) {
  Window w;
  for (int i = 0; i < 4; ++i) gpu(w, i, 100, 19, 0);
  const auto a = advise_on(w.data);
  for (int i = 0; i < 4; ++i) {
    const Advisory* wait = find(a, "util.collective_wait", i);
    ASSERT_TRUE(wait) << i << all_ids(a);
    EXPECT_FALSE(evidence(*wait, "waits_for_gpu"));
    EXPECT_FALSE(find(a, "util.launch_bound", i));
  }
  EXPECT_FALSE(find(a, "balance.straggler", std::nullopt));
}

// Balanced, every GPU busy with small kernels, NVLink moving: launch-bound.
TEST(AdvisorDistributed, BalancedSmallKernelsWithLinksMovingStayLaunchBound) {
  Window w;
  for (int i = 0; i < 4; ++i) gpu(w, i, 100, 19, kNvlinkBusy);
  const auto a = advise_on(w.data);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(find(a, "util.launch_bound", i)) << i << all_ids(a);
    EXPECT_FALSE(find(a, "util.collective_wait", i)) << i;
  }
}

TEST(AdvisorDistributed, OneGpuWithSmallKernelsIsStillLaunchBound) {
  Window w;
  gpu(w, 0, 100, 19, 0);
  const auto a = advise_on(w.data);
  EXPECT_TRUE(find(a, "util.launch_bound", 0)) << all_ids(a);
  EXPECT_FALSE(find(a, "util.collective_wait", 0));
}

// The shapes measured on 2 x H200 (ResNet-50 DDP, docs/verified.md), 10-s
// means. Rank 1's host sleeps 150 ms a step: GPU 0 waits at 99 % with its
// SMs 24 % active (just under launch-bound's 25 % share), GPU 1 reads 10 %.
TEST(AdvisorDistributed, AHostSlowRankOnTwoH200s) {
  Window w;
  gpu(w, 0, 99.1, 24.1, 1.1e9);
  gpu(w, 1, 10.1, 7.2, 1.1e9);
  const auto a = advise_on(w.data);
  const Advisory* wait = find(a, "util.collective_wait", 0);
  ASSERT_TRUE(wait) << all_ids(a);
  EXPECT_EQ(evidence(*wait, "waits_for_gpu")->value, 1);
  EXPECT_FALSE(find(a, "util.launch_bound", 0));
  ASSERT_TRUE(find(a, "balance.straggler", 1)) << all_ids(a);
  EXPECT_EQ(a.front().id, "balance.straggler");
  // At 26 % the share is no longer launch-bound's, and it still is a wait.
  Window w26;
  gpu(w26, 0, 99.1, 26, 1.1e9);
  gpu(w26, 1, 10.1, 7.2, 1.1e9);
  EXPECT_TRUE(find(advise_on(w26.data), "util.collective_wait", 0));
}

// Rank 1 gets 3x the batch: both GPUs read 99 %, GPU 0's SMs 43 % active
// waiting, GPU 1's 87 % computing. The wait shows in the SMs only.
TEST(AdvisorDistributed, UnevenShardsTheWaitShowsInTheSms) {
  Window w;
  gpu(w, 0, 99.0, 42.6, 4.4e9);
  gpu(w, 1, 99.4, 87.2, 4.4e9);
  const auto a = advise_on(w.data);
  const Advisory* wait = find(a, "util.collective_wait", 0);
  ASSERT_TRUE(wait) << all_ids(a);
  EXPECT_EQ(evidence(*wait, "waits_for_gpu")->value, 1);
  EXPECT_DOUBLE_EQ(evidence(*wait, "waited_sm_active_median_percent")->value, 87.2);
  EXPECT_FALSE(find(a, "util.collective_wait", 1)) << all_ids(a);
  const Advisory* s = find(a, "balance.straggler", 1);
  ASSERT_TRUE(s) << all_ids(a);
  EXPECT_NE(s->summary.find("more to compute"), std::string::npos) << s->summary;
  EXPECT_EQ(s->summary.find("likely cause"), std::string::npos) << s->summary;  // not its host
  EXPECT_EQ(wait->explained_by, (AdvisoryRef{"balance.straggler", 1}));
  // Less than half again as active: no wait named.
  Window near;
  gpu(near, 0, 99.0, 42.6, 4.4e9);
  gpu(near, 1, 99.4, 63.0, 4.4e9);
  EXPECT_FALSE(find(advise_on(near.data), "util.collective_wait", 0));
}

// Balanced ResNet-50 DDP: both GPUs 76-88 % busy, SMs 48-58 %: nothing.
TEST(AdvisorDistributed, ABalancedJobOnTwoH200sIsNoWait) {
  Window w;
  gpu(w, 0, 87.5, 58.4, 8e9);
  gpu(w, 1, 83.0, 56.2, 8e9);
  const auto a = advise_on(w.data);
  for (const char* id : {"util.collective_wait", "util.launch_bound", "balance.straggler"}) {
    EXPECT_FALSE(find(a, id, 0)) << id << all_ids(a);
    EXPECT_FALSE(find(a, id, 1)) << id << all_ids(a);
  }
}

// On an H200, back-to-back 64x64 matmuls from Python: utilization 16.8 %,
// SMs 0.3 %, the process at 100.7 % of a core launching them. Launch-bound,
// not waiting for input: the core is busy launching.
TEST(AdvisorDistributed, ACoreBusyLaunchingKernelsIsNoInputSign) {
  Window w;
  w.host(HostMetric::TreeCpuPercent, flat(100.7));
  w.host(HostMetric::CpuPercent, flat(7));
  gpu(w, 0, 16.8, 0.3);
  const auto a = advise_on(w.data);
  EXPECT_FALSE(find(a, "util.input_bound", 0)) << all_ids(a);
  ASSERT_TRUE(find(a, "util.launch_bound", 0)) << all_ids(a);
  EXPECT_EQ(a.front().id, "util.launch_bound");
  // The same busy core with SMs as busy as the utilization: input-bound.
  Window fed;
  fed.host(HostMetric::TreeCpuPercent, flat(100.7));
  fed.host(HostMetric::CpuPercent, flat(7));
  gpu(fed, 0, 16.8, 14);
  EXPECT_TRUE(find(advise_on(fed.data), "util.input_bound", 0)) << all_ids(advise_on(fed.data));
}

// --- job.hung ---

// GPUs 0-2 wait in a collective, GPU 3 idle, for `seconds`, nothing moving.
Window hung_job(double seconds) {
  Window w(seconds);
  for (int i = 0; i < 3; ++i) gpu(w, i, 100, 19, 0);
  gpu(w, 3, 0, 0, 0);
  return w;
}

TEST(AdvisorHang, SixtyOneQuietSecondsAreAHang) {
  const auto a = advise_on(hung_job(61).data);
  const Advisory* h = find(a, "job.hung", std::nullopt);
  ASSERT_TRUE(h) << all_ids(a);
  EXPECT_EQ(h->severity, Severity::Critical);
  EXPECT_EQ(h->action, "restart_hung_job");
  EXPECT_EQ(h->summary,
            "no progress for 61 s: GPU 0, 1, 2 wait in a collective (utilization 100 %, SMs 19 % active, links "
            "silent) for GPU 3, idle: the job is hung");
  EXPECT_DOUBLE_EQ(evidence(*h, "no_progress_s")->value, 61);
  EXPECT_DOUBLE_EQ(evidence(*h, "hang_after_s")->value, 60);
  EXPECT_DOUBLE_EQ(evidence(*h, "missing_gpu")->value, 3);
  EXPECT_EQ(std::count_if(h->evidence.begin(), h->evidence.end(), [](const Evidence& e) { return e.name == "waiting_gpu"; }),
            3);
  // The hang explains everything after it and comes first.
  EXPECT_EQ(a.front().id, "job.hung");
  for (const Advisory& other : a) {
    if (&other != &a.front()) {
      EXPECT_EQ(other.explained_by, (AdvisoryRef{"job.hung", std::nullopt})) << other.id;
    }
  }
  EXPECT_TRUE(find(a, "util.collective_wait", 0));
  EXPECT_FALSE(find(a, "util.launch_bound", 0));
}

TEST(AdvisorHang, FiftyNineSecondsAreNotYet) {
  EXPECT_FALSE(find(advise_on(hung_job(59).data), "job.hung", std::nullopt));
  AdvisorConfig shorter;
  shorter.hang_after_s = 30;
  EXPECT_TRUE(find(advise_on(hung_job(59).data, shorter), "job.hung", std::nullopt));
}

TEST(AdvisorHang, StepsStillAnnotatedAreNoHang) {
  Window w = hung_job(120);
  // A slow step, every 50 s: the job moves.
  for (double t : {10.0, 60.0, 110.0}) w.event(t, "step", std::to_string(static_cast<int>(t / 50)));
  EXPECT_FALSE(find(advise_on(w.data), "job.hung", std::nullopt));
  // The last step 61 s before the end: hung.
  Window late = hung_job(120);
  late.event(59, "step", "1");
  EXPECT_TRUE(find(advise_on(late.data), "job.hung", std::nullopt));
}

TEST(AdvisorHang, NvlinkMovingIsNoHang) {
  Window w = hung_job(120);
  for (int i = 0; i < 3; ++i) {
    w.set(i, DeviceMetric::NvlinkTxBytesPerSec, flat(kNvlinkBusy));
  }
  EXPECT_FALSE(find(advise_on(w.data), "job.hung", std::nullopt));
  // Moving until 61 s before the end, then silent: hung since then.
  Window stopped = hung_job(130);
  stopped.set(0, DeviceMetric::NvlinkTxBytesPerSec, [](double t) { return t < 69 ? kNvlinkBusy : 0; });
  const auto a = advise_on(stopped.data);
  const Advisory* h = find(a, "job.hung", std::nullopt);
  ASSERT_TRUE(h) << all_ids(a);
  EXPECT_DOUBLE_EQ(evidence(*h, "no_progress_s")->value, 61);
}

TEST(AdvisorHang, EveryGpuBusyOrMemoryMovingIsNoHang) {
  Window all_wait(120);
  for (int i = 0; i < 4; ++i) gpu(all_wait, i, 100, 19, 0);  // nobody missing: maybe another node's rank
  EXPECT_FALSE(find(advise_on(all_wait.data), "job.hung", std::nullopt));
  Window working = hung_job(120);
  working.set(3, DeviceMetric::GpuUtilPercent, flat(95));
  working.set(3, DeviceMetric::SmActivePercent, flat(80));
  EXPECT_FALSE(find(advise_on(working.data), "job.hung", std::nullopt));
  Window memory = hung_job(120);
  memory.set(1, DeviceMetric::MemUsedBytes, [](double t) { return 40 * kGiB + t * 64 * kMiB; });
  EXPECT_FALSE(find(advise_on(memory.data), "job.hung", std::nullopt));
}

// CUDA_VISIBLE_DEVICES=0,1 for a script that uses GPU 0 alone: GPU 1,
// idle and empty, is no missing rank.
TEST(AdvisorHang, AnIdleGpuTheJobNeverUsedIsNoMissingRank) {
  Window w(90);
  w.gpu(0, flat(100), flat(40 * kGiB));
  w.gpu(1, flat(0), flat(0.3 * kGiB));
  EXPECT_FALSE(find(advise_on(w.data), "job.hung", std::nullopt));
  // Its rank's process was there (the lists show it): it is the missing one.
  for (int gpu : {0, 1}) {
    ProcessRecord p;
    p.device_index = gpu;
    p.last_seen_wall_ns = w.data.run.start_wall_ns + (gpu == 0 ? 90 : 5) * kSec;
    w.data.processes.push_back(p);
  }
  const auto a = advise_on(w.data);
  const Advisory* h = find(a, "job.hung", std::nullopt);
  ASSERT_TRUE(h) << all_ids(a);
  EXPECT_NE(h->summary.find("for GPU 1, whose process is gone"), std::string::npos) << h->summary;
}

// Without GPM: utilization pinned high and flat on the waiting GPUs.
TEST(AdvisorHang, WithoutSmCountersPinnedUtilizationIsTheWait) {
  Window w(90);
  w.gpu(0, flat(100), flat(40 * kGiB));
  w.gpu(1, flat(0), flat(40 * kGiB));
  EXPECT_TRUE(find(advise_on(w.data), "job.hung", std::nullopt));
  Window busy(90);
  busy.gpu(0, [](double t) { return t > 50 && t < 52 ? 60 : 100; }, flat(40 * kGiB));
  busy.gpu(1, flat(0), flat(40 * kGiB));
  EXPECT_FALSE(find(advise_on(busy.data), "job.hung", std::nullopt));  // a dip 38 s ago: it moved
}

// The loaders read max(window_s, hang_after_s + 10 s): the other rules see
// window_s of it, the hang rule the whole span.
TEST(AdvisorHang, TheHangSpanIsLongerThanTheWindow) {
  AdvisorConfig config;
  EXPECT_DOUBLE_EQ(advisor_span_s(config), 70);
  config.hang_after_s = 20;
  EXPECT_DOUBLE_EQ(advisor_span_s(config), 60);
  const RunData span = hung_job(75).data;
  const RunData recent = advisor_window(span, AdvisorConfig{}, span.devices[0].mono_ns.back());
  const RunReport report = build_report(recent);
  const auto a = advise({report, recent, 600, {}, &span}, AdvisorConfig{});
  ASSERT_TRUE(find(a, "job.hung", std::nullopt)) << all_ids(a);
  EXPECT_DOUBLE_EQ(evidence(*find(a, "job.hung", std::nullopt), "no_progress_s")->value, 75);
  EXPECT_DOUBLE_EQ(evidence(*find(a, "util.collective_wait", 0), "window_s")->value, 60);
  const auto window_only = advise({report, recent, 600, {}}, AdvisorConfig{});
  EXPECT_FALSE(find(window_only, "job.hung", std::nullopt));  // 60 s seen: not longer than 60
}

}  // namespace
}  // namespace gpuwatch
