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
