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

// Issue 9 item 22: columns were padded by code points, so a CJK or emoji name
// pushed the rest of its row right by one column per character.
TEST(TextTable, AlignsCjkAndEmojiByDisplayWidth) {
  Table t;
  t.columns = {{"name"}, {"gpu %", true}};
  t.rows = {{"训练", "80"}, {"🚀 run", "7"}, {"plain", "100"}, {"café", "5"}};
  const auto out = lines(render_text_table(t, 100));
  ASSERT_EQ(out.size(), 5u);
  for (const std::string& line : out) EXPECT_EQ(display_width(line), display_width(out[0])) << line;
  EXPECT_EQ(out[1], "训练" + std::string(7, ' ') + "80");
  EXPECT_EQ(out[2], "🚀 run" + std::string(6, ' ') + "7");
}

TEST(TextTable, CutsWideNamesWithoutSplittingACharacter) {
  Table t;
  t.columns = {{"name", false, true, 4}, {"n", true}};
  t.rows = {{"训练模型训练模型训练模型", "1"}};
  // 8 columns for the name: three characters, "…", and a space where the
  // fourth would straddle the edge.
  const auto out = lines(render_text_table(t, 11));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1], "训练模… " + std::string(2, ' ') + "1");
  for (const std::string& line : out) EXPECT_EQ(display_width(line), 11u) << line;
}

// Issue 22 item 16: matrix cells' names differ at the end; cut to
// "lr=3e-4,s…" they hid which cell a row was. A wrapping column folds them.
TEST(TextTable, WrapsNamesOntoMoreLinesInsteadOfCuttingThem) {
  Table t;
  t.columns = {{"name", false, true, 8, true}, {"n", true}, {"outcome"}};
  t.rows = {{"resnet50_lr=3e-4,seed=1", "1", "exit 0"},
            {"short", "22", "exit 0"},
            {"训练模型训练模型", "3", "ok"}};
  const auto out = lines(render_text_table(t, 24));
  for (const std::string& line : out) EXPECT_LE(display_width(line), 24u) << line;
  ASSERT_EQ(out.size(), 7u) << render_text_table(t, 24);
  // Broken after separators, the values on the first line, nothing cut.
  EXPECT_EQ(out[1], "resnet50_     1  exit 0");
  EXPECT_EQ(out[2], "lr=3e-4,");
  EXPECT_EQ(out[3], "seed=1");
  EXPECT_EQ(out[4], "short        22  exit 0");
  EXPECT_EQ(out[5], "训练模型训    3  ok");
  EXPECT_EQ(out[6], "练模型");
  std::string joined;
  for (const std::string& line : out) joined += line;
  EXPECT_EQ(joined.find("…"), std::string::npos);
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
