#include "render/units.h"

#include <gtest/gtest.h>

#include "render/table.h"

namespace gpuwatch {
namespace {

TEST(UnitsFixed, NoNegativeZero) {
  EXPECT_EQ(fixed(-0.04, 1), "0.0");
  EXPECT_EQ(fixed(-0.0, 2), "0.00");
  EXPECT_EQ(fixed(-0.4, 0), "0");
  EXPECT_EQ(fixed(-0.06, 1), "-0.1");
  EXPECT_EQ(fixed(12.346, 2), "12.35");
}

TEST(UnitsSignedFixed, SignExceptOnZero) {
  EXPECT_EQ(signed_fixed(1.24, 1), "+1.2");
  EXPECT_EQ(signed_fixed(-1.26, 1), "-1.3");
  EXPECT_EQ(signed_fixed(-0.04, 1), "0.0");  // not "-0.0"
  EXPECT_EQ(signed_fixed(0.004, 2), "0.00");  // not "+0.00"
  EXPECT_EQ(signed_fixed(-3.0, 0, "−"), "−3");
}

TEST(UnitsHumanCount, ScalesToThousandsMillionsBillions) {
  EXPECT_EQ(human_count(0), "0");
  EXPECT_EQ(human_count(812), "812");
  EXPECT_EQ(human_count(2401), "2.4 k");  // was "0.0 M parameters"
  EXPECT_EQ(human_count(99'940), "99.9 k");
  EXPECT_EQ(human_count(999'400), "999 k");
  EXPECT_EQ(human_count(999'600), "1.0 M");  // not "1000 k"
  EXPECT_EQ(human_count(11'689'512), "11.7 M");
  EXPECT_EQ(human_count(175e6), "175 M");
  EXPECT_EQ(human_count(1.3e9), "1.3 B");
  EXPECT_EQ(human_count(70e9), "70.0 B");
}

TEST(UnitsShorten, FitsUnchanged) { EXPECT_EQ(shorten("model loaded", 12), "model loaded"); }

TEST(UnitsShorten, CutsAtTheLastWordThatFits) {
  // 20 columns: "utilization 3 % over" (20) leaves no room for "…"; the cut
  // goes back a word, never into "over".
  EXPECT_EQ(shorten("utilization 3 % over 60 s with idle gaps", 20), "utilization 3 %…");
  const std::string s = shorten("stopped by --on-underuse kill: memory.batch_too_small GPU 0 after 30 s", 40);
  EXPECT_LE(display_width(s), 40u);
  EXPECT_EQ(s, "stopped by --on-underuse kill…");  // no dangling ':' before the "…"
}

TEST(UnitsShorten, ALongWordIsCutAtACodePointWithAMark) {
  const std::string s = shorten("/very/long/path/to/a/python/interpreter/python3.11", 12);
  EXPECT_EQ(s, "/very/long/…");
  // UTF-8: never half a code point.
  EXPECT_EQ(shorten("éééééééé", 4), "ééé…");
}

}  // namespace
}  // namespace gpuwatch
