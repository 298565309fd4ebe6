// One verdict per run (analysis/run_verdict.h): the config and advisories a
// run was recorded with, the finished run's verdict, and the memory rule's
// warm-up (issue 23: a warm-up was called a possible leak).
#include <gtest/gtest.h>

#include "advisor_test_util.h"
#include "analysis/run_verdict.h"

namespace gpuwatch {
namespace {

using namespace advisor_test;

Curve busy() {
  return [](double t) { return 90 + 5 * std::sin(t * 1.7); };
}

// Imports for 20 s, then the model and the allocator's cache: 20 -> 40 GiB
// over 30 s, then flat.
double warm_up_gib(double t) { return t < 20 ? 20 : t < 50 ? 20 + (t - 20) * 20 / 30 : 40; }

TEST(MemoryWarmUp, RisingForThirtySecondsThenFlatIsNoLeakAtAnyCheck) {
  // The live advisor's 60 s window, at every check from the warm-up's end
  // (warmup_s, 60 s) to a minute of flat memory after the rise.
  for (double now = 60; now <= 110; now += 2.5) {
    Window w(60);
    w.gpu(0, busy(), [now](double t) { return warm_up_gib(now - 60 + t) * kGiB; });
    const auto a = advise_on(w.data, {}, now);
    EXPECT_EQ(find(a, "memory.growing"), nullptr) << "at " << now << " s";
    EXPECT_EQ(find(a, "memory.leak"), nullptr) << "at " << now << " s";
  }
  // The finished run, judged whole.
  Window whole(110);
  whole.gpu(0, busy(), [](double t) { return warm_up_gib(t) * kGiB; });
  const RunReport report = build_report(whole.data);
  const RunVerdict v = finished_run_verdict(whole.data, report, 110, {});
  EXPECT_EQ(find(v.advisories, "memory.growing"), nullptr) << ::testing::PrintToString(ids(v.advisories));
  EXPECT_EQ(find(v.advisories, "memory.leak"), nullptr);
}

TEST(MemoryWarmUp, SteadyGrowthAfterTheWarmUpIsStillGrowing) {
  // The same warm-up, then +1 GiB every 20 s for good: a leak.
  const auto leaking = [](double t) { return (warm_up_gib(t) + (t > 50 ? (t - 50) / 20 : 0)) * kGiB; };
  Window w(60);
  w.gpu(0, busy(), [&](double t) { return leaking(120 + t); });
  EXPECT_TRUE(find(advise_on(w.data, {}, 180), "memory.growing"));
  // A climb of the whole window, 3 GiB a minute, as before.
  Window steady(60);
  steady.gpu(0, busy(), [](double t) { return (30 + t / 20) * kGiB; });
  EXPECT_TRUE(find(advise_on(steady.data), "memory.growing"));
}

Event at(double s, std::string kind, std::string message, std::optional<int> gpu = std::nullopt) {
  const auto t_ns = static_cast<std::int64_t>(s * 1e9);
  return Event{{kStartMono + t_ns, 1'700'000'000 * kSec + t_ns}, gpu, std::move(kind), std::move(message)};
}

TEST(RunVerdict, RecordedAdvisoriesAreReplayedWithTheirTimeRaised) {
  const std::vector<Event> events{
      at(10, "advisory", "warning balance.imbalance: GPU utilization is uneven"),
      at(12, "advisory", "info memory.batch_could_grow GPU 1: memory 60 %", 1),
      at(20, "advisory", "cleared memory.batch_could_grow GPU 1", 1),
      at(30, "advisory", "critical balance.imbalance: worse"),
      at(40, "advisory", "not an advisory line"),
  };
  const auto r = recorded_advisories(events, kStartMono + 100 * kSec);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].advisory.id, "balance.imbalance");
  EXPECT_EQ(r[0].advisory.device_index, std::nullopt);
  EXPECT_EQ(r[0].advisory.severity, Severity::Critical);
  EXPECT_EQ(r[0].advisory.summary, "worse");
  EXPECT_DOUBLE_EQ(r[0].raised_s, 90);  // never cleared: to the run's end
  EXPECT_EQ(r[1].advisory.id, "memory.batch_could_grow");
  EXPECT_EQ(r[1].advisory.device_index, 1);
  EXPECT_DOUBLE_EQ(r[1].raised_s, 8);
}

TEST(RunVerdict, TheRecordedConfigIsUsedUnlessOneIsGiven) {
  AdvisorConfig recorded;
  recorded.window_s = 5;
  recorded.warmup_s = 1;
  const std::vector<Event> events{at(0, std::string(kAdvisorConfigEventKind), format_advisor_config(recorded))};
  AdvisorConfig user;
  user.window_s = 30;
  EXPECT_DOUBLE_EQ(advisor_config_for_run(events, user, false).window_s, 5);
  EXPECT_DOUBLE_EQ(advisor_config_for_run(events, user, true).window_s, 30);
  EXPECT_DOUBLE_EQ(advisor_config_for_run({}, user, false).window_s, 30);  // an older run: the reader's
  const std::vector<Event> bad{at(0, std::string(kAdvisorConfigEventKind), "no_such_key = 1\n")};
  EXPECT_FALSE(recorded_advisor_config(bad).has_value());
}

TEST(RunVerdict, AFinishedRunKeepsWhatWasRaisedLongEnoughDuringRecording) {
  // A healthy whole run of 400 s; the live window's steady part (the
  // default config) is 120 s (warm-up and a window) to 340 s (a window
  // before the end). The live advisor saw an imbalance for 40 s and a batch
  // that could grow for 10 s (under half the 60 s window) in it; the job's
  // start-up (70-110 s) and teardown (from 350 s) as idle GPUs.
  Window w(400);
  w.gpu(0, busy(), flat(60 * kGiB));
  w.data.events.push_back(at(70, "advisory", "warning util.input_bound GPU 0: the start-up", 0));
  w.data.events.push_back(at(110, "advisory", "cleared util.input_bound GPU 0", 0));
  w.data.events.push_back(at(150, "advisory", "warning balance.imbalance: GPU utilization is uneven"));
  w.data.events.push_back(at(190, "advisory", "cleared balance.imbalance"));
  w.data.events.push_back(at(195, "advisory", "critical util.low GPU 0: short", 0));
  w.data.events.push_back(at(205, "advisory", "cleared util.low GPU 0", 0));
  w.data.events.push_back(at(350, "advisory", "warning util.low GPU 0: the teardown", 0));
  const RunReport report = build_report(w.data);
  const RunVerdict v = finished_run_verdict(w.data, report, 400, {});
  EXPECT_EQ(v.word, "warning");
  ASSERT_EQ(v.advisories.size(), 1u) << ::testing::PrintToString(ids(v.advisories)) << v.advisories.back().summary;
  EXPECT_EQ(v.advisories[0].id, "balance.imbalance");
  EXPECT_EQ(v.advisories[0].summary, "GPU utilization is uneven");
  EXPECT_DOUBLE_EQ(evidence(v.advisories[0], "raised_during_recording_s")->value, 40);
  // Raised in the steady part and still up at the end: counted up to its end.
  Window late(400);
  late.gpu(0, busy(), flat(60 * kGiB));
  late.data.events.push_back(at(310, "advisory", "warning balance.imbalance: GPU utilization is uneven"));
  const RunVerdict lv = finished_run_verdict(late.data, build_report(late.data), 400, {});
  ASSERT_EQ(lv.advisories.size(), 1u);
  EXPECT_DOUBLE_EQ(evidence(lv.advisories[0], "raised_during_recording_s")->value, 30);
  // Nothing recorded, nothing found: "ok", the one word for it.
  Window quiet(120);
  quiet.gpu(0, busy(), flat(60 * kGiB));
  EXPECT_EQ(finished_run_verdict(quiet.data, build_report(quiet.data), 120, {}).word, "ok");
  EXPECT_EQ(verdict_word({}), "ok");
}

// record --on-hang kill: job.hung came 60 s into the hang, the kill 10 s
// later, and the teardown cleared it: all in the run's last window, yet the
// reason the run was stopped heads its verdict.
TEST(RunVerdict, WhatARunWasStoppedForHeadsItsVerdict) {
  Window w(400);
  w.gpu(0, busy(), flat(60 * kGiB));
  w.data.events.push_back(at(340, "advisory", "critical job.hung: no progress for 61 s"));
  w.data.events.push_back(at(350, "hung", "stopped by --on-hang kill: job.hung"));
  w.data.events.push_back(at(355, "advisory", "cleared job.hung"));
  w.data.run.end_reason = "hung";
  const RunVerdict v = finished_run_verdict(w.data, build_report(w.data), 400, {});
  ASSERT_FALSE(v.advisories.empty());
  EXPECT_EQ(v.advisories[0].id, "job.hung");
  EXPECT_EQ(v.advisories[0].action, "restart_hung_job");
  EXPECT_DOUBLE_EQ(evidence(v.advisories[0], "raised_during_recording_s")->value, 15);
  EXPECT_EQ(v.word, "critical");
  // A run that ended on its own: the same last-window advisory is its ending.
  w.data.run.end_reason = "exited";
  EXPECT_EQ(find(finished_run_verdict(w.data, build_report(w.data), 400, {}).advisories, "job.hung", std::nullopt),
            nullptr);
}

TEST(RunVerdict, AnAdvisoryFoundBothWaysKeepsTheWholeRunsNumbersAtTheHigherSeverity) {
  Window w(300);
  w.gpu(0, busy(), flat(30 * kGiB), 100 * kGiB);  // memory.batch_too_small (warning) over the whole run
  w.data.events.push_back(at(130, "advisory", "critical memory.batch_too_small GPU 0: then", 0));
  const RunVerdict v = finished_run_verdict(w.data, build_report(w.data), 300, {});
  const Advisory* a = find(v.advisories, "memory.batch_too_small");
  ASSERT_TRUE(a) << ::testing::PrintToString(ids(v.advisories));
  EXPECT_EQ(a->severity, Severity::Critical);
  EXPECT_NE(a->summary, "then");
  EXPECT_EQ(v.word, "critical");
}

TEST(RunVerdict, ARecordedCauseExplainsTheWholeRunsConsequence) {
  // The whole run holds 30 % of memory (memory.batch_too_small); while it was
  // recorded the GPU waited for its input: the cause heads the verdict and
  // the batch size waits for it, as the live advisor said.
  Window w(300);
  w.gpu(0, busy(), flat(30 * kGiB), 100 * kGiB);
  w.data.events.push_back(at(130, "advisory", "warning util.input_bound GPU 0: waits for its input", 0));
  const RunVerdict v = finished_run_verdict(w.data, build_report(w.data), 300, {});
  ASSERT_GE(v.advisories.size(), 2u) << ::testing::PrintToString(ids(v.advisories));
  EXPECT_EQ(v.advisories[0].id, "util.input_bound");
  EXPECT_EQ(v.advisories[0].action, "feed_faster");
  const Advisory* batch = find(v.advisories, "memory.batch_too_small");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->severity, Severity::Info);
  ASSERT_TRUE(batch->explained_by);
  EXPECT_EQ(batch->explained_by->id, "util.input_bound");
  EXPECT_EQ(v.word, "warning");
}

TEST(RunVerdict, ALeakAcrossEpochsIsALeakWhoeverAsks) {
  // Issue 23: the end summary (the last window, without the epochs) said
  // memory.growing where `status` (with them) said memory.leak. The finished
  // run's verdict judges the whole run with every epoch: one answer.
  Window w(300);
  w.gpu(0, busy(), [](double t) { return (40 + t / 30) * kGiB; });
  for (int epoch = 0; epoch < 15; ++epoch) w.event(epoch * 20.0, "epoch", std::to_string(epoch));
  const RunVerdict v = finished_run_verdict(w.data, build_report(w.data), 300, {});
  EXPECT_TRUE(find(v.advisories, "memory.leak")) << ::testing::PrintToString(ids(v.advisories));
  EXPECT_EQ(find(v.advisories, "memory.growing"), nullptr);
  EXPECT_EQ(v.word, "warning");
}

}  // namespace
}  // namespace gpuwatch
