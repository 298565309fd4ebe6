// The client's step timing (data_wait_s, step_time_s, timed_steps log
// messages) summed over a span, per epoch, and over the whole run.
#include <gtest/gtest.h>

#include <limits>

#include "analysis/run_report.h"
#include "analysis/step_timing.h"
#include "analysis/training.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

Event at(double s, std::string kind, std::string message) {
  const auto ns = static_cast<std::int64_t>(s * 1e9);
  return Event{{100 * kSec + ns, ns}, std::nullopt, std::move(kind), std::move(message)};
}

Event timing(double s, const std::string& wait, const std::string& step, const std::string& steps) {
  return at(s, "log", "data_wait_s=" + wait + " step_time_s=" + step + " timed_steps=" + steps);
}

TEST(StepTiming, SumsWaitsAndStepsIntoAShareAndAMeanStep) {
  const std::vector<Event> events{timing(1, "0.6", "1.0", "10"), at(1.5, "log", "loss=0.5"),
                                  timing(2, "0.2", "1.0", "30")};
  const auto messages = step_timing_messages(events);
  ASSERT_EQ(messages.size(), 2u);
  const auto t = sum_step_timing(messages, kMin, kMax);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->messages, 2u);
  EXPECT_DOUBLE_EQ(t->steps, 40);
  EXPECT_NEAR(*t->data_wait_percent(), 40, 1e-9);  // 0.8 of 2.0 s: long steps weigh more
  EXPECT_NEAR(*t->mean_step_s(), 0.05, 1e-12);
}

TEST(StepTiming, AWindowHoldsTheMessagesThatEndInsideIt) {
  const std::vector<Event> events{timing(1, "0.5", "1", "10"), timing(2, "0", "1", "10"), timing(3, "1", "1", "10")};
  const auto messages = step_timing_messages(events);
  const auto t = sum_step_timing(messages, 100 * kSec + 2 * kSec, 100 * kSec + 3 * kSec);  // [2 s, 3 s)
  ASSERT_TRUE(t);
  EXPECT_EQ(t->messages, 1u);
  EXPECT_DOUBLE_EQ(*t->data_wait_percent(), 0);
  EXPECT_FALSE(sum_step_timing(messages, 100 * kSec + 4 * kSec, kMax));  // none: not 0 %
}

TEST(StepTiming, BadValuesAreSkippedOrClamped) {
  const std::vector<Event> events{
      timing(1, "-0.1", "1", "10"),         // negative wait: skipped
      timing(2, "0.1", "0", "10"),          // no step time: skipped
      timing(3, "0.1", "1", "0"),           // no steps: skipped
      timing(4, "0.1", "1", "2.5"),         // not a whole number of steps: skipped
      timing(5, "nan", "1", "10"),          // not a number (never stored, but imported): skipped
      at(6, "log", "data_wait_s=0.1 step_time_s=1"),  // incomplete: skipped
      timing(7, "3", "1", "10"),            // waits longer than its step: cut to the step
      timing(8, "0", "1e308", "10"),        // fine alone
      timing(9, "0", "1e308", "10"),        // would overflow the sum: skipped
  };
  std::size_t skipped = 0;
  const auto messages = step_timing_messages(events, &skipped);
  EXPECT_EQ(skipped, 7u);
  ASSERT_EQ(messages.size(), 2u);
  const auto first = sum_step_timing(messages, kMin, 100 * kSec + 8 * kSec);
  ASSERT_TRUE(first);
  EXPECT_DOUBLE_EQ(*first->data_wait_percent(), 100);
  EXPECT_EQ(first->clamped, 1u);
}

TEST(StepTiming, EachEpochGetsItsOwnShareAndTheRunItsTotal) {
  RunData data;
  data.run.start_mono_ns = 100 * kSec;
  data.events = {at(0, "epoch", "0"),        timing(1, "0.8", "1", "10"), timing(2, "0.8", "1", "10"),
                 at(3, "epoch", "1"),        timing(4, "0.1", "1", "20"), at(5, "log", "loss=0.25"),
                 at(6, "log", "step_time_s=1")};  // alone: skipped, and not a scalar either
  data.run.end_wall_ns = 7 * kSec;
  const RunReport r = build_report(data);
  ASSERT_EQ(r.epochs.size(), 2u);
  ASSERT_TRUE(r.epochs[0].step_timing);
  EXPECT_NEAR(*r.epochs[0].step_timing->data_wait_percent(), 80, 1e-9);
  EXPECT_NEAR(*r.epochs[0].step_timing->mean_step_s(), 0.1, 1e-12);
  ASSERT_TRUE(r.epochs[1].step_timing);
  EXPECT_NEAR(*r.epochs[1].step_timing->data_wait_percent(), 10, 1e-9);
  EXPECT_DOUBLE_EQ(r.epochs[1].step_timing->steps, 20);
  ASSERT_TRUE(r.training && r.training->step_timing);
  EXPECT_NEAR(*r.training->step_timing->data_wait_percent(), 1.7 / 3 * 100, 1e-9);
  EXPECT_DOUBLE_EQ(r.training->step_timing->steps, 40);
  EXPECT_EQ(r.training->step_timing_skipped, 1u);
  // The reserved names are not listed as ordinary scalars.
  ASSERT_EQ(r.training->scalars.size(), 1u);
  EXPECT_EQ(r.training->scalars[0].name, "loss");
}

TEST(StepTiming, ARunWithoutTimingHasNone) {
  const std::vector<Event> events{at(1, "log", "loss=1"), at(2, "step", "5")};
  EXPECT_TRUE(step_timing_messages(events).empty());
  const auto t = summarize_training(events);
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->step_timing);
}

}  // namespace
}  // namespace gpuwatch
