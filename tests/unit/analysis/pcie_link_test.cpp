#include "analysis/pcie_link.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

// Five samples 1 s apart: weights 0.5, 1, 1, 1, 0.5 (4 s).
struct Link {
  std::vector<std::int64_t> t{0, kSec, 2 * kSec, 3 * kSec, 4 * kSec};
  std::vector<double> util;
  std::vector<double> gen;
  std::vector<double> width;
  std::optional<int> max_gen;
  std::optional<int> max_width;
  [[nodiscard]] PcieLinkInput input() const { return {t, util, gen, width, max_gen, max_width}; }
};

TEST(PcieLink, DegradedLinkWhileBusyIsCounted) {
  // Busy throughout; Gen3 instead of Gen4 at 2 s (weight 1 of 4 s) -> 25 %.
  Link l{.util = {90, 90, 90, 90, 90},
         .gen = {4, 4, 3, 4, 4},
         .width = {16, 16, 16, 16, 16},
         .max_gen = 4,
         .max_width = 16};
  auto r = pcie_link(l.input());
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->busy_s, 4.0);
  EXPECT_DOUBLE_EQ(r->degraded_busy_s, 1.0);
  EXPECT_DOUBLE_EQ(r->degraded_percent, 25.0);
  EXPECT_EQ(r->max_gen, 4);
  EXPECT_EQ(r->max_width, 16);
  EXPECT_EQ(r->worst_busy_gen, 3);
  EXPECT_EQ(r->worst_busy_width, 16);
}

TEST(PcieLink, NarrowWidthWhileBusyIsDegradedToo) {
  // x8 instead of x16 at the first and last samples (0.5 + 0.5 of 4 s) -> 25 %.
  Link l{.util = {90, 90, 90, 90, 90},
         .gen = {4, 4, 4, 4, 4},
         .width = {8, 16, 16, 16, 8},
         .max_gen = 4,
         .max_width = 16};
  auto r = pcie_link(l.input());
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->degraded_busy_s, 1.0);
  EXPECT_DOUBLE_EQ(r->degraded_percent, 25.0);
  EXPECT_EQ(r->worst_busy_gen, 4);
  EXPECT_EQ(r->worst_busy_width, 8);
}

TEST(PcieLink, DegradedWhileIdleIsNotCounted) {
  // The GPU drops to Gen1 x4 while idle (10 % at 2 s): power saving, not a
  // fault. Busy time 0.5+1+1+0.5 = 3 s, none of it degraded.
  Link l{.util = {90, 90, 10, 90, 90},
         .gen = {4, 4, 1, 4, 4},
         .width = {16, 16, 4, 16, 16},
         .max_gen = 4,
         .max_width = 16};
  auto r = pcie_link(l.input());
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->busy_s, 3.0);
  EXPECT_DOUBLE_EQ(r->degraded_busy_s, 0.0);
  EXPECT_DOUBLE_EQ(r->degraded_percent, 0.0);
  EXPECT_EQ(r->worst_busy_gen, 4);
  EXPECT_EQ(r->worst_busy_width, 16);
}

TEST(PcieLink, BusyStartsAtFiftyPercentAndAbsentUtilIsNotBusy) {
  // 50 % is busy (kBusyUtilPercent), 49.9 % and NaN are not. Only the 50 %
  // sample at 1 s (weight 1) counts, and it is degraded.
  Link l{.util = {49.9, 50, kNaN, 10, 0},
         .gen = {3, 3, 3, 3, 3},
         .width = {16, 16, 16, 16, 16},
         .max_gen = 4,
         .max_width = 16};
  auto r = pcie_link(l.input());
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->busy_s, 1.0);
  EXPECT_DOUBLE_EQ(r->degraded_busy_s, 1.0);
  EXPECT_DOUBLE_EQ(r->degraded_percent, 100.0);
}

TEST(PcieLink, NeverBusyReportsZeroWorst) {
  Link l{.util = {0, 0, 0, 0, 0},
         .gen = {1, 1, 1, 1, 1},
         .width = {16, 16, 16, 16, 16},
         .max_gen = 4,
         .max_width = 16};
  auto r = pcie_link(l.input());
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->busy_s, 0.0);
  EXPECT_DOUBLE_EQ(r->degraded_percent, 0.0);
  EXPECT_EQ(r->worst_busy_gen, 0);
  EXPECT_EQ(r->worst_busy_width, 0);
}

TEST(PcieLink, StaticMaximumWinsOverWhatTheDataShows) {
  // A Gen5 x16 card that only ever trained at Gen4: degraded all the time.
  Link l{.util = {90, 90, 90, 90, 90},
         .gen = {4, 4, 4, 4, 4},
         .width = {16, 16, 16, 16, 16},
         .max_gen = 5,
         .max_width = 16};
  auto r = pcie_link(l.input());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->max_gen, 5);
  EXPECT_EQ(r->max_width, 16);
  EXPECT_DOUBLE_EQ(r->degraded_busy_s, 4.0);
  EXPECT_DOUBLE_EQ(r->degraded_percent, 100.0);
}

TEST(PcieLink, WithoutStaticFactsTheBestSeenIsTheMaximum) {
  // Same data without static facts: Gen4 x16 is the best seen, so the link
  // is never degraded. Gen3 at 2 s then counts (1 of 4 s busy -> 25 %).
  Link l{.util = {90, 90, 90, 90, 90},
         .gen = {4, 4, 4, 4, 4},
         .width = {16, 16, 16, 16, 16},
         .max_gen = std::nullopt,
         .max_width = std::nullopt};
  auto r = pcie_link(l.input());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->max_gen, 4);
  EXPECT_EQ(r->max_width, 16);
  EXPECT_DOUBLE_EQ(r->degraded_percent, 0.0);

  l.gen = {4, 4, 3, 4, 4};
  r = pcie_link(l.input());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->max_gen, 4);
  EXPECT_DOUBLE_EQ(r->degraded_percent, 25.0);
}

TEST(PcieLink, MixedStaticAndInferredMaximum) {
  // Width known (x16), generation inferred (best seen 5): x8 at Gen5 on the
  // last sample (0.5 of 4 s) -> 12.5 %.
  Link l{.util = {90, 90, 90, 90, 90},
         .gen = {5, 5, 5, 5, 5},
         .width = {16, 16, 16, 16, 8},
         .max_gen = std::nullopt,
         .max_width = 16};
  auto r = pcie_link(l.input());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->max_gen, 5);
  EXPECT_EQ(r->max_width, 16);
  EXPECT_DOUBLE_EQ(r->degraded_percent, 12.5);
}

TEST(PcieLink, NoLinkDataGivesNothing) {
  // Static facts alone say nothing about the run.
  Link l{.util = {90, 90, 90, 90, 90},
         .gen = {kNaN, kNaN, kNaN, kNaN, kNaN},
         .width = {kNaN, kNaN, kNaN, kNaN, kNaN},
         .max_gen = 4,
         .max_width = 16};
  EXPECT_FALSE(pcie_link(l.input()));
  // Generation read but width never: still no link reading.
  l.gen = {4, 4, 4, 4, 4};
  EXPECT_FALSE(pcie_link(l.input()));
  // Empty series.
  EXPECT_FALSE(pcie_link(PcieLinkInput{}));
}

TEST(PcieLink, SamplesWithoutLinkReadingAreSkippedForWeights) {
  // Link read at 0, 2 and 4 s only (the slow cadence): weights 1, 2, 1 (cap
  // 1.5 x 2 s median gap = 3 s). Gen3 at 2 s while busy: 2 of 4 s -> 50 %.
  Link l{.util = {90, 90, 90, 90, 90},
         .gen = {4, kNaN, 3, kNaN, 4},
         .width = {16, kNaN, 16, kNaN, 16},
         .max_gen = 4,
         .max_width = 16};
  auto r = pcie_link(l.input());
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->busy_s, 4.0);
  EXPECT_DOUBLE_EQ(r->degraded_busy_s, 2.0);
  EXPECT_DOUBLE_EQ(r->degraded_percent, 50.0);
}

}  // namespace
}  // namespace gpuwatch
