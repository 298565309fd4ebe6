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

namespace gpuwatch {
namespace {

// Issue 9, item 24: patterns as Python users write them (PCRE2, not ECMAScript).
TEST(OutputPatternPcre2, PythonSyntaxWorks) {
  const OutputPattern ignore_case(R"((?i)epoch (?P<epoch>\d+))");
  const auto got = ignore_case.match("EPOCH 7 done");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].count, 7);

  // Look-behind, positive and negative: the training loss, not val_loss.
  const OutputPattern not_val(R"((?<!val_)loss=(?P<loss>[\d.]+))");
  const auto loss = not_val.match("val_loss=9.5 loss=0.25");
  ASSERT_EQ(loss.size(), 1u);
  ASSERT_EQ(loss[0].values.size(), 1u);
  EXPECT_DOUBLE_EQ(loss[0].values[0].second, 0.25);
  const OutputPattern behind(R"((?<=lr=)(?P<lr>[\d.e-]+))");
  const auto lr = behind.match("step 3 lr=3e-4");
  ASSERT_EQ(lr.size(), 1u);
  EXPECT_DOUBLE_EQ(lr[0].values.at(0).second, 3e-4);

  // Lazy quantifiers, \s, a backreference to a named group.
  const OutputPattern lazy(R"(step\s+(?P<step>\d+?)\b.*?(?P<q>["'])(?P<phase>\w+)(?P=q))");
  const auto phase = lazy.match("step 12 entering 'val' now");
  ASSERT_EQ(phase.size(), 2u);
  EXPECT_EQ(phase[0].count, 12);
  EXPECT_EQ(phase[1].kind, AnnotationKind::Phase);
  EXPECT_EQ(phase[1].text, "val");
}

TEST(OutputPatternPcre2, ErrorsSayWhere) {
  try {
    const OutputPattern p("Epoch (?P<epoch>\\d+");
    FAIL() << "accepted an unclosed group";
  } catch (const PatternError& e) {
    EXPECT_NE(std::string(e.what()).find("offset 19"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing closing parenthesis"), std::string::npos) << e.what();
  }
}

TEST(OutputPatternPcre2, OutputThatIsNotUtf8StillMatches) {
  const OutputPattern p(R"(Epoch (?P<epoch>\d+))");
  const auto got = p.match("\xff\xfe garbage Epoch 4");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].count, 4);
  // A line cut inside a character at the scan limit is no error either.
  const std::string cut = "Epoch 5 " + std::string(kMaxScannedLineBytes - 9, 'x') + "\xc3\xa9";
  EXPECT_EQ(p.match(cut).size(), 1u);
}

TEST(OutputPatternPcre2, RunawayBacktrackingIsNoMatch) {
  // (a+)+b on a line of a's and no b: exponential without a limit.
  const OutputPattern p(R"((?P<x>(a+)+)b)");
  EXPECT_TRUE(p.match(std::string(kMaxScannedLineBytes, 'a')).empty());
}

TEST(OutputPatternPcre2, TooManyValueGroupsAreRefused) {
  std::string pattern;
  for (std::size_t i = 0; i <= kMaxLogValues; ++i) pattern += "(?P<v" + std::to_string(i) + ">\\d)";
  EXPECT_THROW(OutputPattern{pattern}, PatternError);
}

TEST(OutputPatternPcre2, PatternsMoveWithTheirCompiledCode) {
  std::vector<OutputPattern> patterns;
  patterns.emplace_back(R"(a(?P<epoch>\d))");
  patterns.emplace_back(R"(b(?P<step>\d))");
  patterns.emplace_back(R"(c(?P<loss>\d))");  // reallocates: the first two move
  EXPECT_EQ(patterns[0].match("a1").at(0).count, 1);
  EXPECT_EQ(patterns[1].match("b2").at(0).count, 2);
}

}  // namespace
}  // namespace gpuwatch
