#include "base/json_writer.h"

#include "core/metrics.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(JsonWriter, NestsAndSeparatesCorrectly) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("a", 1);
  w.key("b").begin_array();
  w.value(1.5).value("x").null().value(true);
  w.begin_object().end_object();
  w.end_array();
  w.field("c", std::optional<double>());
  w.end_object();
  EXPECT_EQ(out, R"({"a":1,"b":[1.5,"x",null,true,{}],"c":null})");
}

TEST(JsonWriter, EscapesStringsAndNullsNonFiniteNumbers) {
  std::string out;
  JsonWriter w(out);
  w.begin_array();
  w.value("q\"b\\n\n\t\x01");
  w.value(kNaN);
  w.value(std::numeric_limits<double>::infinity());
  w.end_array();
  EXPECT_EQ(out, "[\"q\\\"b\\\\n\\n\\t\\u0001\",null,null]");
}

TEST(JsonWriter, KeepsValidUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(json_quote("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
  // A character cut in half (as comm's 15-byte limit does), a lone
  // continuation byte, an overlong '/', and a surrogate.
  EXPECT_EQ(json_quote("ab\xE2\x82"), "\"ab\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(json_quote("\x80"), "\"\xEF\xBF\xBD\"");
  EXPECT_EQ(json_quote("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(json_quote("\xED\xA0\x80"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

TEST(JsonWriter, KeepsInvalidBytesWhenAskedSoTheStoresArgvComesBackExactly) {
  EXPECT_EQ(json_quote("a\xff\xfe", InvalidUtf8::Keep), "\"a\xff\xfe\"");
  EXPECT_EQ(json_quote("a\xff", InvalidUtf8::Replace), "\"a\xEF\xBF\xBD\"");
  // Controls and bidi overrides are escaped either way.
  EXPECT_EQ(json_quote("\x1b\u202e", InvalidUtf8::Keep), "\"\\u001b\\u202e\"");
}

TEST(JsonWriter, PrettyOutputIndents) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object().field("a", 1).key("b").begin_array().value(2).end_array().end_object();
  EXPECT_EQ(out, "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}");
}

// The shortest digits that read back, laid out as gpuwatch wrote them with
// fmt's "{}" before (goldens and stored documents depend on it): plain for
// exponents -4..15, else d.ddde±XX.
TEST(JsonWriter, NumbersAreShortestAndLaidOutAsBefore) {
  const auto text = [](double d) {
    std::string out;
    append_json_number(out, d);
    return out;
  };
  EXPECT_EQ(text(0.0), "0");
  EXPECT_EQ(text(-0.0), "-0");
  EXPECT_EQ(text(100.0), "100");
  EXPECT_EQ(text(1234.5), "1234.5");
  EXPECT_EQ(text(-2.5), "-2.5");
  EXPECT_EQ(text(0.1), "0.1");
  EXPECT_EQ(text(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(text(0.0001), "0.0001");
  EXPECT_EQ(text(0.000123), "0.000123");
  EXPECT_EQ(text(0.00001), "1e-05");
  EXPECT_EQ(text(9999999999999998.0), "9999999999999998");
  EXPECT_EQ(text(1e16), "1e+16");
  EXPECT_EQ(text(1.5e16), "1.5e+16");
  EXPECT_EQ(text(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(text(5e-324), "5e-324");
  std::string out;
  JsonWriter(out).begin_array().value(std::int64_t{-42}).value(std::uint64_t{18446744073709551615u}).end_array();
  EXPECT_EQ(out, "[-42,18446744073709551615]");
}

}  // namespace
}  // namespace gpuwatch
