#include "annotate/output_pattern.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(OutputPattern, NamedGroupsBecomeAnnotations) {
  const OutputPattern p(R"(Epoch (?<epoch>\d+) step (?P<step>\d+).*loss[:=] *(?<loss>[0-9.e+-]+))");
  const auto got = p.match("Epoch 3 step 1200 | loss: 0.1234 acc 0.9");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].kind, AnnotationKind::Epoch);
  EXPECT_EQ(got[0].count, 3);
  EXPECT_EQ(got[1].kind, AnnotationKind::Step);
  EXPECT_EQ(got[1].count, 1200);
  EXPECT_EQ(got[2].kind, AnnotationKind::Log);
  ASSERT_EQ(got[2].values.size(), 1u);
  EXPECT_EQ(got[2].values[0].first, "loss");
  EXPECT_DOUBLE_EQ(got[2].values[0].second, 0.1234);
  EXPECT_TRUE(p.match("nothing here").empty());
}

TEST(OutputPattern, GroupsAreCountedLikeTheEngineDoes) {
  // Unnamed, non-capturing and lookahead groups, escaped and bracketed parens.
  const OutputPattern p(R"((a|b) (?:x)(?=y)y \( [(] (?<epoch>\d+) (c)? (?<acc>[\d.]+))");
  const auto got = p.match("a xy ( ( 7  0.5");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].count, 7);
  EXPECT_DOUBLE_EQ(got[1].values[0].second, 0.5);
}

TEST(OutputPattern, PhaseAndMarkTakeText) {
  const OutputPattern p(R"(^== (?<phase>\w+) ==$)");
  const auto got = p.match("== val ==");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, AnnotationKind::Phase);
  EXPECT_EQ(got[0].text, "val");
  const OutputPattern marks("Saving checkpoint");
  const auto mark = marks.match("[12:00] Saving checkpoint to /x");
  ASSERT_EQ(mark.size(), 1u);
  EXPECT_EQ(mark[0].kind, AnnotationKind::Mark);
  EXPECT_EQ(mark[0].text, "[12:00] Saving checkpoint to /x");  // the whole line
}

TEST(OutputPattern, ValuesThatAreNotNumbersAreSkipped) {
  const OutputPattern p(R"(step (?<step>\S+) loss (?<loss>\S+))");
  EXPECT_TRUE(p.match("step x loss nan").empty());
  const auto got = p.match("step 1.5 loss +2");  // a step must be whole; + is allowed
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, AnnotationKind::Log);
  EXPECT_DOUBLE_EQ(got[0].values[0].second, 2);
}

TEST(OutputPattern, BadPatternsAreErrors) {
  EXPECT_THROW(OutputPattern("(unclosed"), PatternError);
  EXPECT_THROW(OutputPattern("(?<epoch\\d+)"), PatternError);
  EXPECT_THROW(OutputPattern("(?<1x>a)"), PatternError);
  EXPECT_THROW(OutputPattern("(?<a.b>a)"), PatternError);
  EXPECT_THROW(OutputPattern("(?<x>a)(?<x>b)"), PatternError);
}

TEST(OutputPattern, LongLinesAreScannedByTheirStart) {
  const OutputPattern p(R"(loss (?<loss>\d+))");
  const std::string late = std::string(kMaxScannedLineBytes, '=') + "loss 3";
  EXPECT_TRUE(p.match(late).empty());
  const std::string early = "loss 3" + std::string(1'000'000, '=');
  EXPECT_EQ(p.match(early).size(), 1u);
}

}  // namespace
}  // namespace gpuwatch
