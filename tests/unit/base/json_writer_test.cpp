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

}  // namespace
}  // namespace gpuwatch
