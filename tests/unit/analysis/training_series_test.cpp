// The training's signals over time (issue 26): scalar groups, the step rate
// and the progress maps compare's --align draws by.
#include "analysis/training_series.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

constexpr std::int64_t kS = 1'000'000'000;

Event at(double t_s, std::string kind, std::string message) {
  Event e;
  e.time.wall_ns = static_cast<std::int64_t>(t_s * 1e9);
  e.kind = std::move(kind);
  e.message = std::move(message);
  return e;
}

TEST(TrainingSeries, ScalarsApartFromTheNamesThatAreNoValuesOverTime) {
  const std::vector<Event> events{at(1, "log", "loss=2 lr=0.1 model_params=1e9 batch_size=32"),
                                  at(2, "log", "data_wait_s=0.1 step_time_s=1 timed_steps=3 torch_allocated_bytes=5"),
                                  at(3, "log", "val_loss=2.5"), at(4, "step", "10"), at(5, "step", "20")};
  const TrainingSeries s = training_series(events);
  ASSERT_EQ(s.scalars.size(), 3u);
  EXPECT_EQ(s.scalars[0].name, "loss");
  EXPECT_EQ(s.scalars[1].name, "lr");
  EXPECT_EQ(s.scalars[2].name, "val_loss");
  ASSERT_EQ(s.batch_size.size(), 1u);
  EXPECT_EQ(s.batch_size[0].value, 32);
  EXPECT_EQ(s.steps.size(), 2u);
}

TEST(TrainingSeries, SplitWordsGroupNames) {
  const auto group = [](std::string_view n) { return split_scalar_name(n); };
  EXPECT_EQ(group("val_loss").group, "loss");
  EXPECT_EQ(group("val_loss").split, ScalarSplit::Val);
  EXPECT_EQ(group("valid_loss").split, ScalarSplit::Val);
  EXPECT_EQ(group("eval.loss").group, "loss");
  EXPECT_EQ(group("loss_val").split, ScalarSplit::Val);
  EXPECT_EQ(group("train_loss").group, "loss");
  EXPECT_EQ(group("train_loss").split, ScalarSplit::Train);
  EXPECT_EQ(group("test_acc").split, ScalarSplit::Test);
  EXPECT_EQ(group("interval").group, "interval");  // "val" inside a word is no split
  EXPECT_EQ(group("val").group, "val");
}

TEST(TrainingSeries, StepRateOverWindowsAndNotAcrossPauses) {
  std::vector<TrainingPoint> steps;
  for (int t = 0; t <= 30; ++t) steps.push_back({t * kS, 5.0 * t});
  for (int t = 60; t <= 90; ++t) steps.push_back({t * kS, 5.0 * t - 100});  // after a 30 s evaluation
  const auto rate = step_rate(steps, 10);
  ASSERT_FALSE(rate.empty());
  for (const TrainingPoint& p : rate) EXPECT_DOUBLE_EQ(p.value, 5) << p.wall_ns;
  const auto samples = sample_rate(rate, std::vector<TrainingPoint>{{0, 32}});
  EXPECT_DOUBLE_EQ(samples.front().value, 160);
}

TEST(TrainingSeries, ProgressByStepAndByEpoch) {
  const ProgressMap by_step = step_progress(std::vector<TrainingPoint>{{0, 0}, {10 * kS, 100}, {20 * kS, 300}});
  EXPECT_DOUBLE_EQ(*by_step.at(5 * kS), 50);
  EXPECT_DOUBLE_EQ(*by_step.at(15 * kS), 200);
  EXPECT_FALSE(by_step.at(21 * kS));

  // Epochs 1 and 2 back to back (an end and the next start at one moment), a
  // pause, epoch 3 open to the run's end.
  const std::vector<Event> events{at(0, "epoch", "1"), at(10, "epoch", ""),  at(10, "epoch", "2"),
                                  at(20, "epoch", ""), at(30, "epoch", "3")};
  const ProgressMap by_epoch = epoch_progress(events, 40 * kS);
  EXPECT_DOUBLE_EQ(*by_epoch.at(5 * kS), 1.5);
  EXPECT_DOUBLE_EQ(*by_epoch.at(10 * kS), 2);
  EXPECT_DOUBLE_EQ(*by_epoch.at(15 * kS), 2.5);
  EXPECT_FALSE(by_epoch.at(25 * kS));  // between epochs
  EXPECT_DOUBLE_EQ(*by_epoch.at(35 * kS), 3.5);
}

}  // namespace
}  // namespace gpuwatch
