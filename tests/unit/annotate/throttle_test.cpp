#include "annotate/annotation_throttle.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

Event at(double s, std::string kind, std::string message) {
  return Event{{static_cast<std::int64_t>(s * kSecond), 0}, std::nullopt, std::move(kind), std::move(message)};
}

TEST(AnnotationThrottle, StepsEveryIterationKeepOnePerSecondAndTheLast) {
  AnnotationThrottle throttle;
  std::vector<Event> stored;
  for (int step = 0; step < 250; ++step) {  // 100 steps a second for 2.5 s
    throttle.add(at(step * 0.01, "step", std::to_string(step)), stored);
    throttle.take_due(static_cast<std::int64_t>(step * 0.01 * kSecond), stored);
  }
  throttle.take_all(stored);
  ASSERT_EQ(stored.size(), 4u);
  EXPECT_EQ(stored[0].message, "0");
  EXPECT_EQ(stored[1].message, "100");
  EXPECT_EQ(stored[2].message, "200");
  EXPECT_EQ(stored[3].message, "249");  // the last step is never lost
}

TEST(AnnotationThrottle, HeldEventIsStoredOnceItsSpacingPassed) {
  AnnotationThrottle throttle;
  std::vector<Event> stored;
  throttle.add(at(0, "step", "1"), stored);
  throttle.add(at(0.3, "step", "2"), stored);
  throttle.take_due(static_cast<std::int64_t>(0.9 * kSecond), stored);
  EXPECT_EQ(stored.size(), 1u);
  throttle.take_due(static_cast<std::int64_t>(1.0 * kSecond), stored);
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[1].message, "2");
  EXPECT_EQ(stored[1].time.mono_ns, static_cast<std::int64_t>(0.3 * kSecond));  // its own time
  throttle.take_all(stored);
  EXPECT_EQ(stored.size(), 2u);
}

TEST(AnnotationThrottle, LogsAreThrottledPerNameSet) {
  AnnotationThrottle throttle;
  std::vector<Event> stored;
  throttle.add(at(0, "log", "loss=1"), stored);
  throttle.add(at(0.1, "log", "loss=0.9"), stored);          // held
  throttle.add(at(0.2, "log", "val_loss=2"), stored);        // another stream
  throttle.add(at(0.3, "log", "loss=0.8 lr=0.1"), stored);   // another name set
  throttle.add(at(0.4, "epoch", "1"), stored);               // never held
  throttle.add(at(0.5, "mark", "ckpt"), stored);
  throttle.add(at(0.6, "phase", "val"), stored);
  ASSERT_EQ(stored.size(), 6u);
  EXPECT_EQ(stored[1].message, "val_loss=2");
  throttle.take_all(stored);
  ASSERT_EQ(stored.size(), 7u);
  EXPECT_EQ(stored[6].message, "loss=0.9");
}

}  // namespace
}  // namespace gpuwatch

namespace gpuwatch {
namespace {

// Issue 9, item 3: "Epoch 3" printed on every line of epoch 3 is one epoch.
TEST(AnnotationThrottle, AnEpochOrPhaseSaidAgainIsNotStoredAgain) {
  AnnotationThrottle throttle;
  std::vector<Event> stored;
  for (int epoch = 1; epoch <= 3; ++epoch) {
    for (int line = 0; line < 4; ++line) throttle.add(at(epoch + line * 0.1, "epoch", std::to_string(epoch)), stored);
  }
  throttle.add(at(5, "phase", "train"), stored);
  throttle.add(at(5.1, "phase", "train"), stored);
  throttle.add(at(5.2, "phase", ""), stored);
  throttle.add(at(5.3, "phase", "train"), stored);  // a new train phase after the end of the last
  throttle.add(at(6, "epoch", "1"), stored);        // epochs counted again from 1: a new one
  throttle.take_all(stored);
  std::vector<std::string> got;
  for (const Event& e : stored) got.push_back(e.kind + ":" + e.message);
  EXPECT_EQ(got, (std::vector<std::string>{"epoch:1", "epoch:2", "epoch:3", "phase:train", "phase:", "phase:train",
                                           "epoch:1"}));
}

// Issue 9, item 7: marks are capped like steps, and what was dropped is said.
TEST(AnnotationThrottle, MarksBurstThenOneASecondAndTheDroppedAreCounted) {
  AnnotationThrottle throttle;
  std::vector<Event> stored;
  for (int i = 0; i < 1000; ++i) throttle.add(at(0, "mark", "line " + std::to_string(i)), stored);
  EXPECT_EQ(stored.size(), kMarkBurst);
  EXPECT_EQ(stored.front().message, "line 0");  // the first ones are kept
  for (int i = 0; i < 100; ++i) throttle.add(at(10.0 + i * 0.01, "mark", "later"), stored);  // 10 s later
  EXPECT_EQ(stored.size(), kMarkBurst + 10);
  EXPECT_EQ(throttle.dropped_marks(), 900u + 90u);
  throttle.take_all(stored);
  ASSERT_EQ(stored.size(), kMarkBurst + 11);
  EXPECT_EQ(stored.back().kind, "marks_dropped");
  EXPECT_EQ(stored.back().message.substr(0, 16), "990 marks not st");
  throttle.take_all(stored);  // said once
  EXPECT_EQ(stored.size(), kMarkBurst + 11);
}

TEST(AnnotationThrottle, MarksStopAtTheRunCap) {
  AnnotationThrottle throttle;
  std::vector<Event> stored;
  // One mark a second for longer than the cap allows.
  for (std::size_t i = 0; i < kMaxStoredMarks + 500; ++i) throttle.add(at(static_cast<double>(i), "mark", "m"), stored);
  EXPECT_EQ(stored.size(), kMaxStoredMarks);
  EXPECT_EQ(throttle.dropped_marks(), 500u);
}

TEST(AnnotationThrottle, NoDroppedMarksNoEvent) {
  AnnotationThrottle throttle;
  std::vector<Event> stored;
  throttle.add(at(0, "mark", "ckpt"), stored);
  throttle.take_all(stored);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].kind, "mark");
}

}  // namespace
}  // namespace gpuwatch

namespace gpuwatch {
namespace {

// Issue 22: a new name in every message bypassed the per-stream spacing.
TEST(AnnotationThrottle, DistinctLogNamesAreBoundedAndCounted) {
  AnnotationThrottle throttle;
  std::vector<Event> stored;
  for (int i = 0; i < 1000; ++i) throttle.add(at(i * 0.001, "log", "m" + std::to_string(i) + "=1"), stored);
  throttle.add(at(2, "step", "5"), stored);  // steps are not logs: never refused for it
  throttle.add(at(2, "log", "m3=2"), stored);  // a known set still goes through
  throttle.take_all(stored);
  EXPECT_EQ(throttle.dropped_logs(), 1000 - kMaxLogStreams);
  ASSERT_EQ(stored.size(), kMaxLogStreams + 3);
  EXPECT_EQ(stored[kMaxLogStreams].message, "5");
  EXPECT_EQ(stored[kMaxLogStreams + 1].message, "m3=2");
  EXPECT_EQ(stored.back().kind, "logs_dropped");
  EXPECT_EQ(stored.back().message, "936 log messages not stored (more than 64 different sets of names)");
}

// Step timing is a sum over the steps a message covers: four ranks each
// sending once a second under the same names must not lose three of them.
TEST(AnnotationThrottle, HeldStepTimingMessagesAreSummedNotReplaced) {
  AnnotationThrottle throttle;
  std::vector<Event> stored;
  for (int rank = 0; rank < 4; ++rank) {
    throttle.add(at(1 + rank * 0.01, "log", "data_wait_s=0.25 step_time_s=1 timed_steps=10"), stored);
  }
  throttle.add(at(1.5, "log", "loss=1"), stored);
  throttle.add(at(1.6, "log", "loss=2"), stored);  // an ordinary scalar: the latest wins
  throttle.take_all(stored);
  ASSERT_EQ(stored.size(), 4u);
  EXPECT_EQ(stored[0].message, "data_wait_s=0.25 step_time_s=1 timed_steps=10");  // the first, stored at once
  EXPECT_EQ(stored[1].message, "loss=1");
  EXPECT_EQ(stored[2].message, "data_wait_s=0.75 step_time_s=3 timed_steps=30");  // the other three together
  EXPECT_EQ(stored[2].time.mono_ns, static_cast<std::int64_t>(1.03 * kSecond));
  EXPECT_EQ(stored[3].message, "loss=2");
}

TEST(AnnotationThrottle, AnEpochStoresTheHeldStepTimingFirst) {
  AnnotationThrottle throttle;
  std::vector<Event> stored;
  throttle.add(at(1, "log", "data_wait_s=0.5 step_time_s=1 timed_steps=10"), stored);
  throttle.add(at(1.2, "log", "data_wait_s=0.5 step_time_s=1 timed_steps=10"), stored);  // held
  throttle.add(at(1.3, "epoch", "2"), stored);
  throttle.add(at(1.4, "log", "data_wait_s=0 step_time_s=1 timed_steps=10"), stored);  // epoch 2's own
  throttle.take_all(stored);
  ASSERT_EQ(stored.size(), 4u);
  EXPECT_EQ(stored[1].message, "data_wait_s=0.5 step_time_s=1 timed_steps=10");
  EXPECT_EQ(stored[2].kind, "epoch");
  EXPECT_EQ(stored[3].message, "data_wait_s=0 step_time_s=1 timed_steps=10");
}

}  // namespace
}  // namespace gpuwatch
