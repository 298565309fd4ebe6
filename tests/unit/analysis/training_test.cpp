#include "analysis/training.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

Event ev(std::string kind, std::string message) {
  return Event{{}, std::nullopt, std::move(kind), std::move(message)};
}

TEST(Training, LogMessagesParseAndSkipMalformedPairs) {
  const auto v = parse_log_message("loss=0.53 =1 lr=3e-4 acc=x bare top5=0.9");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].first, "loss");
  EXPECT_DOUBLE_EQ(v[1].second, 3e-4);
  EXPECT_EQ(v[2].first, "top5");
  EXPECT_TRUE(parse_log_message("").empty());
}

TEST(Training, SummaryOfProgressScalarsAndAllocator) {
  const std::vector<Event> events{
      ev("log", "model_params=11689512"), ev("epoch", "1"), ev("phase", "train"), ev("step", "10"),
      ev("log", "loss=2.5"), ev("log", "torch_allocated_bytes=1000 torch_reserved_bytes=4000"),
      ev("step", "20"), ev("log", "loss=1.5 lr=0.1"), ev("epoch", "2"),
      ev("log", "loss=1.75 torch_allocated_bytes=3000 torch_reserved_bytes=2000 torch_max_allocated_bytes=3500"),
      ev("mark", "checkpoint"), ev("signal", "SIGINT")};
  const auto t = summarize_training(events);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->last_step, 20);
  EXPECT_EQ(t->epochs, 2u);
  EXPECT_EQ(t->marks, 1u);
  EXPECT_EQ(t->model_params, 11689512);
  ASSERT_EQ(t->scalars.size(), 2u);
  const ScalarSummary& loss = t->scalars[0];
  EXPECT_EQ(loss.name, "loss");
  EXPECT_EQ(loss.count, 3u);
  EXPECT_DOUBLE_EQ(loss.first, 2.5);
  EXPECT_DOUBLE_EQ(loss.last, 1.75);
  EXPECT_DOUBLE_EQ(loss.min, 1.5);
  EXPECT_DOUBLE_EQ(loss.max, 2.5);
  EXPECT_EQ(t->scalars[1].name, "lr");
  EXPECT_EQ(t->torch_allocated_peak_bytes, 3000);
  EXPECT_EQ(t->torch_reserved_peak_bytes, 4000);  // peaks, not the last values
  EXPECT_EQ(t->torch_max_allocated_bytes, 3500);
  EXPECT_EQ(latest_logged(events, "loss"), 1.75);
  EXPECT_EQ(latest_logged(events, "model_params"), 11689512);
  EXPECT_FALSE(latest_logged(events, "acc").has_value());
}

TEST(Training, NoAnnotationsNoSummary) {
  const std::vector<Event> events{ev("signal", "SIGTERM"), ev("gpu_lost", "")};
  EXPECT_FALSE(summarize_training(events).has_value());
  EXPECT_TRUE(is_dense_annotation(ev("step", "1")));
  EXPECT_TRUE(is_dense_annotation(ev("log", "a=1")));
  EXPECT_FALSE(is_dense_annotation(ev("epoch", "1")));
}

// Issue 9, item 3: 3 epochs printed 4 times each were "12 epochs".
TEST(Training, AnEpochSaidAgainInARowCountsOnce) {
  std::vector<Event> events;
  for (int e = 1; e <= 3; ++e) {
    for (int line = 0; line < 4; ++line) events.push_back(ev("epoch", std::to_string(e)));
    events.push_back(ev("mark", "x"));  // other kinds in between change nothing
  }
  events.push_back(ev("epoch", "1"));  // a second loop counting from 1 again
  const auto t = summarize_training(events);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->epochs, 4u);
}

TEST(Training, DroppedMarksAreReadBack) {
  const std::vector<Event> events{ev("mark", "a"), ev("marks_dropped", "12 marks not stored"),
                                  ev("marks_dropped", "4000 marks not stored (...)")};
  const auto t = summarize_training(events);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->marks, 1u);
  EXPECT_EQ(t->marks_dropped, 4000u);
}

}  // namespace
}  // namespace gpuwatch
