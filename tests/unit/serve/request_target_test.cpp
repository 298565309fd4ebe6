#include "serve/request_target.h"

#include <gtest/gtest.h>

#include <string>

#include "serve/access_token.h"

namespace gpuwatch {
namespace {

TEST(RequestTarget, SegmentsAndParamsAreDecoded) {
  const auto t = parse_request_target("/api/runs/bert%20base/series?metric=gpu_util_percent&from=1.5&name=a+b%2Bc");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->segments, (std::vector<std::string>{"api", "runs", "bert base", "series"}));
  EXPECT_EQ(t->param("metric"), "gpu_util_percent");
  EXPECT_EQ(t->param("from"), "1.5");
  EXPECT_EQ(t->param("name"), "a b+c");
  EXPECT_FALSE(t->param("to"));
}

TEST(RequestTarget, AnEncodedSlashStaysInsideItsSegment) {
  const auto t = parse_request_target("/static/a%2Fb");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->segments, (std::vector<std::string>{"static", "a/b"}));
}

TEST(RequestTarget, RootAndTrailingSlashes) {
  EXPECT_TRUE(parse_request_target("/")->segments.empty());
  EXPECT_EQ(parse_request_target("/api/runs/")->segments.size(), 2U);
  EXPECT_EQ(parse_request_target("//api//runs")->segments.size(), 2U);
}

TEST(RequestTarget, RefusesWhatNoRouteShouldSee) {
  for (const char* bad : {"", "api/runs", "http://host/api", "/static/../x", "/a/%2e%2e/b",
                          "/a/./b", "/a%00b", "/a%0ab", "/a%", "/a%4", "/a%zz", "/?x=%0d", "/?x=1&x=2", "/?=v",
                          "/?%00=v"}) {
    EXPECT_FALSE(parse_request_target(bad)) << bad;
  }
  // "..%2F" decodes to "../", a segment of its own that is not "..": kept,
  // and harmless, since no route reads a file by name.
  EXPECT_TRUE(parse_request_target("/static/..%2Fx"));
}

TEST(RequestTarget, LimitsOnLengthAndParameterCount) {
  std::string many = "/?";
  for (std::size_t i = 0; i <= kMaxQueryParams; ++i) many += "p" + std::to_string(i) + "=1&";
  EXPECT_FALSE(parse_request_target(many));
  EXPECT_FALSE(parse_request_target("/" + std::string(kMaxTargetBytes, 'a')));
  EXPECT_TRUE(parse_request_target("/?a&b=&c=1"));  // empty values are values
}

TEST(AccessToken, GeneratedTokensAreLongHexAndDiffer) {
  const std::string a = generate_access_token();
  const std::string b = generate_access_token();
  EXPECT_EQ(a.size(), 32U);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
}

TEST(AccessToken, MatchesOnlyTheWholeToken) {
  EXPECT_TRUE(token_matches("s3cret", "s3cret"));
  for (const char* wrong : {"", "s3cre", "s3cret!", "S3cret", "x3cret"}) EXPECT_FALSE(token_matches("s3cret", wrong));
  EXPECT_FALSE(token_matches("", ""));  // no token is never a match
}

TEST(AccessToken, BearerHeaderFirstThenTheParameter) {
  EXPECT_EQ(presented_token("Bearer abc", "def"), "abc");
  EXPECT_EQ(presented_token("", "def"), "def");
  EXPECT_EQ(presented_token("Basic abc", "def"), "def");
}

TEST(AccessToken, TokenText) {
  EXPECT_TRUE(is_token_text("abc-DEF_1.2~"));
  for (const char* bad : {"", "a+b", "a b", "a%b", "a&b", "a#b", "a/b"}) EXPECT_FALSE(is_token_text(bad)) << bad;
}

}  // namespace
}  // namespace gpuwatch
