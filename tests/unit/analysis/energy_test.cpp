#include "analysis/energy.h"

#include "core/metrics.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

TEST(Energy, CounterAndIntegralAgreeForAConstantLoad) {
  // 200 W for 10 s: 2000 J both ways.
  std::vector<std::int64_t> t;
  std::vector<double> energy, power;
  for (int i = 0; i <= 10; ++i) {
    t.push_back(i * kSec);
    power.push_back(200);
    energy.push_back(5000 + 200.0 * i);
  }
  auto e = estimate_energy({t, power}, {t, energy}, 5 * kSec);
  ASSERT_TRUE(e.counter_joules && e.integrated_joules && e.integrated_counter_span_joules);
  EXPECT_DOUBLE_EQ(*e.counter_joules, 2000);
  EXPECT_DOUBLE_EQ(*e.integrated_joules, 2000);
  EXPECT_DOUBLE_EQ(*e.best(), 2000);
}

TEST(Energy, CounterReadAtSlowCadenceComparesOverItsOwnSpan) {
  // Power every second for 10 s; counter only at 2 s and 8 s (slow thread).
  std::vector<std::int64_t> t;
  std::vector<double> energy, power;
  for (int i = 0; i <= 10; ++i) {
    t.push_back(i * kSec);
    power.push_back(i < 5 ? 100 : 300);
    energy.push_back(kNaN);
  }
  energy[2] = 1000;
  energy[8] = 1000 + 100 * 2 + 200 + 300 * 3;  // trapezoid from 2 s to 8 s
  auto e = estimate_energy({t, power}, {t, energy}, 5 * kSec);
  EXPECT_DOUBLE_EQ(*e.counter_joules, 1300);
  EXPECT_DOUBLE_EQ(*e.integrated_counter_span_joules, 1300);
  EXPECT_DOUBLE_EQ(*e.integrated_joules, 100 * 4 + 200 + 300 * 5);
}

TEST(Energy, SpanComparisonInterpolatesAtTheCounterReads) {
  // Counter read at 0.5 s and 2.5 s, between power samples: a ramp 0..300 W.
  std::vector<std::int64_t> pt{0, kSec, 2 * kSec, 3 * kSec};
  std::vector<double> power{0, 100, 200, 300};
  std::vector<std::int64_t> et{kSec / 2, 5 * kSec / 2};
  std::vector<double> energy{0, 300};  // integral of 100 W/s * t from 0.5 to 2.5
  auto e = estimate_energy({pt, power}, {et, energy}, 5 * kSec);
  EXPECT_DOUBLE_EQ(*e.counter_joules, 300);
  EXPECT_DOUBLE_EQ(*e.integrated_counter_span_joules, 300);
  EXPECT_DOUBLE_EQ(*e.integrated_joules, 450);
}

TEST(Energy, CounterResetDoesNotSubtract) {
  std::vector<std::int64_t> t{0, kSec, 2 * kSec, 3 * kSec};
  std::vector<double> energy{100, 300, 50, 150};  // driver reloaded between 1 and 2: 200 + 50 + 100
  std::vector<double> power{kNaN, kNaN, kNaN, kNaN};
  auto e = estimate_energy({t, power}, {t, energy}, 5 * kSec);
  EXPECT_DOUBLE_EQ(*e.counter_joules, 350);
  EXPECT_FALSE(e.integrated_joules);
  EXPECT_DOUBLE_EQ(*e.best(), 350);
}

TEST(Energy, GapsLongerThanTheLimitAreNotBridged) {
  std::vector<std::int64_t> t{0, kSec, 100 * kSec, 101 * kSec};
  std::vector<double> energy{kNaN, kNaN, kNaN, kNaN};
  std::vector<double> power{100, 100, 100, 100};
  auto e = estimate_energy({t, power}, {t, energy}, 5 * kSec);
  EXPECT_DOUBLE_EQ(*e.integrated_joules, 200);
  EXPECT_FALSE(e.counter_joules);
}

}  // namespace
}  // namespace gpuwatch
