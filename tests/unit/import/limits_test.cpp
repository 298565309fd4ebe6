#include "import/limits.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

// Where the limit fell in a record that is cut there: the path of the field.
TEST(JsonPathAt, NamesTheFieldAPositionLiesIn) {
  const std::string text = R"({"timestamp": "x", "multi_gpu_data": [{"a": 1}, {"clocks": {"gpu": 1500, "memory": 99)";
  EXPECT_EQ(json_path_at(text, text.size()), "multi_gpu_data[1].clocks.memory");
  EXPECT_EQ(json_path_at(text, 16), "timestamp");  // inside its string value
  EXPECT_EQ(json_path_at(text, 3), "timestamp");   // inside the key itself
  EXPECT_EQ(json_path_at(text, 0), "");
  EXPECT_EQ(json_path_at("[1, 2, 3", 7), "[2]");
  // Escaped quotes and brackets inside strings are not structure.
  const std::string quoted = R"({"gpu_name": "a \"}] name", "training_metadata": {"note": "xx)";
  EXPECT_EQ(json_path_at(quoted, quoted.size()), "training_metadata.note");
  // A key longer than a message should show is cut; control characters are not shown.
  const std::string long_key = "{\"" + std::string(100, 'k') + "\x1b\": 1";
  EXPECT_EQ(json_path_at(long_key, long_key.size()), std::string(40, 'k') + "…");
  EXPECT_EQ(json_path_at("{\"a\x1b\": 1", 8), "a?");
}

}  // namespace
}  // namespace gpuwatch
