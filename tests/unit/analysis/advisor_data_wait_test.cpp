// util.input_bound from the client's own measurement (data_wait_s,
// step_time_s, timed_steps): raised from it alone above the warning and
// critical shares, and the indirect signs overruled when the loop says it
// does not wait.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "advisor_test_util.h"

namespace gpuwatch {
namespace {

using namespace advisor_test;

// A busy GPU (not low in util.low's sense) on a quiet host, and the loop's
// messages: one a second, 10 steps of 0.1 s each, waiting `share` of it.
Window measured(double share_percent, int messages = 60) {
  Window w;
  w.host(HostMetric::CpuPercent, flat(6));
  w.host(HostMetric::TreeCpuPercent, flat(12));
  w.gpu(0, [](double t) { return 80 + 5 * std::sin(t); }, flat(60 * kGiB));
  for (int i = 1; i <= messages; ++i) {
    w.event(i - 0.5, "log",
            fmt::format("data_wait_s={:.9g} step_time_s=1 timed_steps=10", share_percent / 100));
  }
  return w;
}

TEST(AdvisorDataWait, TheMeasuredShareAloneRaisesInputBound) {
  struct Case {
    double share;
    std::optional<Severity> expected;
  };
  for (const Case c : {Case{9.5, std::nullopt}, Case{10, std::nullopt}, Case{10.5, Severity::Warning},
                       Case{20, Severity::Warning}, Case{20.5, Severity::Critical}, Case{62, Severity::Critical}}) {
    SCOPED_TRACE(c.share);
    const auto a = advise_on(measured(c.share).data);
    const Advisory* input = find(a, "util.input_bound");
    if (!c.expected) {
      EXPECT_EQ(input, nullptr) << input->summary;
      continue;
    }
    ASSERT_TRUE(input) << ::testing::PrintToString(ids(a));
    EXPECT_EQ(input->severity, *c.expected);
    EXPECT_FALSE(input->underuse);  // busy at 80 %: advice, not waste to stop a job for
    EXPECT_EQ(input->action, "feed_faster");
    ASSERT_TRUE(evidence(*input, "data_wait_percent"));
    EXPECT_NEAR(evidence(*input, "data_wait_percent")->value, c.share, 1e-9);
    EXPECT_EQ(evidence(*input, "data_wait_percent")->unit, "percent");
    ASSERT_TRUE(evidence(*input, "step_time_s"));
    EXPECT_NEAR(evidence(*input, "step_time_s")->value, 0.1, 1e-12);
    EXPECT_EQ(evidence(*input, "step_time_s")->unit, "seconds");
    EXPECT_DOUBLE_EQ(evidence(*input, "timed_steps")->value, 600);
  }
  const auto a = advise_on(measured(62).data);
  const Advisory* input = find(a, "util.input_bound");
  ASSERT_TRUE(input);
  EXPECT_EQ(input->summary,
            "the training loop waits for data 62 % of each step (mean step 0.100 s over 600 steps): the GPU waits "
            "for its input");
}

TEST(AdvisorDataWait, TooFewTimedStepsOrTheWarmUpSayNothing) {
  // Two messages of 10 steps: 20 steps is the default minimum.
  EXPECT_TRUE(find(advise_on(measured(62, 2).data), "util.input_bound"));
  EXPECT_FALSE(find(advise_on(measured(62, 1).data), "util.input_bound"));
  AdvisorConfig c;
  c.data_wait_min_steps = 1000;
  EXPECT_FALSE(find(advise_on(measured(62).data, c), "util.input_bound"));
  EXPECT_FALSE(find(advise_on(measured(62).data, {}, 20), "util.input_bound"));  // 20 s old: warming up
  c = {};
  c.data_wait_warning_percent = 70;
  c.data_wait_critical_percent = 80;
  EXPECT_FALSE(find(advise_on(measured(62).data, c), "util.input_bound"));
}

TEST(AdvisorDataWait, OnlyTheWindowsMessagesCount) {
  // A slow start (waits 90 %) long before the window: the last 60 s wait 5 %.
  Window w = measured(5);
  for (int i = 1; i <= 30; ++i) w.event(-100.0 + i, "log", "data_wait_s=0.9 step_time_s=1 timed_steps=10");
  std::stable_sort(w.data.events.begin(), w.data.events.end(),
                   [](const Event& a, const Event& b) { return a.time.mono_ns < b.time.mono_ns; });
  EXPECT_FALSE(find(advise_on(w.data), "util.input_bound"));
}

TEST(AdvisorDataWait, ALoopThatDoesNotWaitIsNotInputBoundWhateverTheSigns) {
  // Idle all window long with a busy process tree: input-bound by the
  // indirect signs, until the loop says it waits 3 % of each step.
  Window w = measured(3);
  w.set(0, DeviceMetric::GpuUtilPercent, flat(0));
  w.host(HostMetric::TreeCpuPercent, flat(150));
  auto without = w;
  std::erase_if(without.data.events, [](const Event& e) { return e.kind == "log"; });
  ASSERT_TRUE(find(advise_on(without.data), "util.input_bound"));

  const auto a = advise_on(w.data);
  EXPECT_EQ(find(a, "util.input_bound"), nullptr) << ::testing::PrintToString(ids(a));
  const Advisory* low = find(a, "util.low");
  ASSERT_TRUE(low) << ::testing::PrintToString(ids(a));
  EXPECT_NE(low->summary.find("cause unknown (the training loop waits for data 3 % of each step"), std::string::npos)
      << low->summary;
  EXPECT_NEAR(evidence(*low, "data_wait_percent")->value, 3, 1e-9);
}

TEST(AdvisorDataWait, LowUtilizationAndAMeasuredWaitIsUnderuseWithTheMeasurementQuoted) {
  Window w = measured(45);
  w.set(0, DeviceMetric::GpuUtilPercent, flat(12));  // steady, no gaps: no indirect sign at all
  const auto a = advise_on(w.data);
  const Advisory* input = find(a, "util.input_bound");
  ASSERT_TRUE(input) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(input->severity, Severity::Critical);
  EXPECT_TRUE(input->underuse);
  EXPECT_NE(input->summary.find("utilization 12 % over 60 s; the training loop waits for data 45 % of each step"),
            std::string::npos)
      << input->summary;
  EXPECT_EQ(find(a, "util.low"), nullptr);
}

}  // namespace
}  // namespace gpuwatch
