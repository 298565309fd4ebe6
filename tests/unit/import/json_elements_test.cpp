#include "import/json_elements.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(JsonElements, CompleteArrayGivesEveryElement) {
  const ArrayScan s = scan_json_array("\xEF\xBB\xBF [ {\"a\": [1, {\"b\": 2}]}, {\"c\": \"}]\"} ,3 ]\n");
  ASSERT_EQ(s.elements.size(), 3u);
  EXPECT_EQ(s.elements[0], "{\"a\": [1, {\"b\": 2}]}");
  EXPECT_EQ(s.elements[1], "{\"c\": \"}]\"}");  // brackets inside strings do not count
  EXPECT_EQ(s.elements[2], "3");
  EXPECT_TRUE(s.closed);
  EXPECT_FALSE(s.partial_element);
  EXPECT_EQ(s.garbage_offset, kNoPosition);
}

TEST(JsonElements, EscapedQuotesStayInsideTheirString) {
  const ArrayScan s = scan_json_array(R"([{"name": "a \"quoted\" {name}\\"}, {"x": 1}])");
  ASSERT_EQ(s.elements.size(), 2u);
  EXPECT_EQ(s.elements[1], R"({"x": 1})");
}

TEST(JsonElements, CutInsideAStringLeavesOnePartialElement) {
  const ArrayScan s = scan_json_array("[\n  {\"a\": 1},\n  {\"gpu_name\": \"AMD Rad");
  EXPECT_EQ(s.elements.size(), 1u);
  EXPECT_TRUE(s.partial_element);
  EXPECT_FALSE(s.closed);
}

TEST(JsonElements, CutInsideANumberLeavesOnePartialElement) {
  EXPECT_TRUE(scan_json_array("[{\"a\": 1}, {\"memory_used\": 2049").partial_element);
  // A number that runs into the end of the text may have lost digits.
  const ArrayScan s = scan_json_array("[1, 2, 30");
  EXPECT_EQ(s.elements.size(), 2u);
  EXPECT_TRUE(s.partial_element);
}

TEST(JsonElements, MissingBracketAfterCompleteElementsDropsNothing) {
  const ArrayScan s = scan_json_array("[{\"a\": 1},\n {\"b\": 2}\n");
  EXPECT_EQ(s.elements.size(), 2u);
  EXPECT_FALSE(s.partial_element);
  EXPECT_FALSE(s.closed);
  EXPECT_EQ(s.garbage_offset, kNoPosition);
  // A comma after the last element: the next one never started.
  EXPECT_FALSE(scan_json_array("[{\"a\": 1},\n").partial_element);
}

TEST(JsonElements, BytesAfterTheArrayAreGarbage) {
  const std::string text = std::string("[{\"a\": 1}]\n  },\n  {\"t\": \"x") + std::string(5, '\0');
  const ArrayScan s = scan_json_array(text);
  EXPECT_EQ(s.elements.size(), 1u);
  EXPECT_TRUE(s.closed);
  EXPECT_EQ(s.garbage_offset, 13u);  // after the whitespace
  EXPECT_EQ(s.garbage_bytes, text.size() - 13);
}

TEST(JsonElements, GarbageWhereAnElementShouldStartEndsTheScan) {
  const std::string text = std::string("[{\"a\": 1}, ") + std::string(4, '\0') + "{\"b\": 2}]";
  const ArrayScan s = scan_json_array(text);
  EXPECT_EQ(s.elements.size(), 1u);
  EXPECT_FALSE(s.partial_element);
  EXPECT_EQ(s.garbage_offset, 11u);
}

TEST(JsonElements, ValueEnd) {
  EXPECT_EQ(json_value_end("{\"a\": [1]} tail", 0), 10u);
  EXPECT_EQ(json_value_end("\"x\\\"y\",", 0), 6u);
  EXPECT_EQ(json_value_end("-1.5e3]", 0), 6u);
  EXPECT_EQ(json_value_end("{\"a\": [1]", 0), kNoPosition);
  EXPECT_EQ(json_value_end("\x01", 0), 0u);  // nothing can start here
}

TEST(JsonElements, CleanReplacesPythonsNonFiniteWordsOutsideStrings) {
  CleanCounts counts;
  EXPECT_EQ(clean_json_text(R"({"p": NaN, "q": -Infinity, "r": [Infinity], "s": "NaN Infinity"})", counts),
            R"({"p": null, "q": null, "r": [null], "s": "NaN Infinity"})");
  EXPECT_EQ(counts.non_finite, 3u);
  EXPECT_EQ(counts.invalid_utf8, 0u);
}

TEST(JsonElements, CleanReplacesInvalidUtf8InStrings) {
  CleanCounts counts;
  EXPECT_EQ(clean_json_text("{\"n\": \"A10G \xff\xc3\xa9\xe2\x82\"}", counts),
            "{\"n\": \"A10G \xEF\xBF\xBD\xc3\xa9\xEF\xBF\xBD\xEF\xBF\xBD\"}");
  EXPECT_EQ(counts.invalid_utf8, 3u);
  EXPECT_EQ(counts.non_finite, 0u);
}

}  // namespace
}  // namespace gpuwatch
