#include "render/table.h"

#include <sstream>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(TextTable, AlignsColumnsAndCountsUnicodeAsOneColumn) {
  Table t;
  t.columns = {{"metric"}, {"value", true}};
  t.rows = {{"temp °C", "−1.5"}, {"x", "10.25"}};
  EXPECT_EQ(render_text_table(t, 100, "  "),
            "  metric   value\n"
            "  temp °C   −1.5\n"
            "  x        10.25\n");
}

TEST(TextTable, ShrinksNamesToFitTheWidth) {
  Table t;
  t.columns = {{"name", false, true, 4}, {"n", true}};
  t.rows = {{"a-very-long-run-name-indeed", "1"}};
  const std::string out = render_text_table(t, 12);
  for (const std::string& line : lines(out)) EXPECT_LE(display_width(line), 12u) << line;
  EXPECT_NE(out.find("a-very-l…"), std::string::npos) << out;
}

TEST(MarkdownTable, EscapesPipesAndAlignsNumbersRight) {
  Table t;
  t.columns = {{"name"}, {"v", true}};
  t.rows = {{"a|b", "1"}};
  EXPECT_EQ(render_markdown_table(t), "| name | v |\n| --- | ---: |\n| a\\|b | 1 |\n");
}

TEST(WrapText, FoldsAtSpacesAndKeepsUnitsWithTheirNumbers) {
  const std::string out = wrap_text("uses 7.5 % less memory: 2.70 GiB vs 2.92 GiB", 16, "", "  ");
  for (const std::string& line : lines(out)) {
    EXPECT_LE(display_width(line), 16u) << line;
    EXPECT_NE(line.rfind("  %", 0), 0u) << "unit alone on a line: " << out;
    EXPECT_NE(line.rfind("  GiB", 0), 0u) << "unit alone on a line: " << out;
  }
  EXPECT_NE(out.find("7.5 %"), std::string::npos) << out;
}

}  // namespace
}  // namespace gpuwatch
