#include "render/json_writer.h"

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

TEST(JsonWriter, PrettyOutputIndents) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object().field("a", 1).key("b").begin_array().value(2).end_array().end_object();
  EXPECT_EQ(out, "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}");
}

}  // namespace
}  // namespace gpuwatch
