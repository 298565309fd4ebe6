#include "analysis/pooled.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gpuwatch {
namespace {

TEST(Pool, CombinesMeansSpreadsAndExtremesExactly) {
  // GPU A: values 0 and 10 for 5 s each (mean 5, std 5); GPU B: 20 for 10 s
  // (mean 20, std 0). Together: 0 (5 s), 10 (5 s), 20 (10 s) over 20 s:
  // mean 12.5; variance = (5*12.5^2 + 5*2.5^2 + 10*7.5^2) / 20 = 68.75.
  Summary a{2, 10, 5, 5, 0, 10, 0, 10};
  Summary b{2, 10, 20, 0, 20, 20, 20, 20};
  const std::vector<const Summary*> both{&a, &b};
  const auto p = pool(both);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->gpus, 2u);
  EXPECT_EQ(p->count, 4u);
  EXPECT_DOUBLE_EQ(p->span_s, 20);
  EXPECT_DOUBLE_EQ(p->mean, 12.5);
  EXPECT_DOUBLE_EQ(p->std, std::sqrt(68.75));
  EXPECT_DOUBLE_EQ(p->min, 0);
  EXPECT_DOUBLE_EQ(p->max, 20);
  EXPECT_DOUBLE_EQ(p->sum_of_means, 25);
}

TEST(Pool, LongerGpusWeighMoreAndMissingOnesAreSkipped) {
  Summary a{10, 30, 60, 0, 60, 60, 60, 60};
  Summary b{5, 10, 20, 0, 20, 20, 20, 20};
  const std::vector<const Summary*> some{&a, nullptr, &b};
  const auto p = pool(some);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->gpus, 2u);
  EXPECT_DOUBLE_EQ(p->mean, (30 * 60.0 + 10 * 20.0) / 40);
  const std::vector<const Summary*> none{nullptr};
  EXPECT_FALSE(pool(none));
}

}  // namespace
}  // namespace gpuwatch
