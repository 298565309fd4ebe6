#include "render/document.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "render/table.h"

namespace gpuwatch {
namespace {

// "Temp °C" is 8 bytes ('°' is two in UTF-8) but 7 columns wide.
TextTable device_table() {
  return TextTable{{"GPU", "Temp °C", "Power W"}, {{"0", "65", "300.5"}, {"1", "7", "80"}}, 1};
}

TEST(DocumentText, TitleLinesHeadingAndAlignedTable) {
  Document d;
  d.title("Run 42");
  d.line("host  node1");
  d.heading("Devices");
  d.line("2 GPUs");
  d.table(device_table());
  // Widths: GPU 3, "Temp °C" 7 columns, "Power W" 7. Each cell is preceded by
  // one space after a one-space indent; column 0 is left-aligned, 1 and 2
  // right-aligned. The line under the title is not indented, the one under
  // the heading is; the heading gets a blank line before it.
  const std::string want =
      "Run 42\n"
      "host  node1\n"
      "\n"
      "Devices\n"
      "  2 GPUs\n"
      "  GPU Temp °C Power W\n"
      "  0        65   300.5\n"
      "  1         7      80\n";
  EXPECT_EQ(d.to_text(), want);
}

TEST(DocumentText, DegreeSignTakesOneColumn) {
  // Every table line is 2 + 3 + 1 + 7 + 1 + 7 = 21 columns; the header has
  // one byte more for the two-byte '°'. Counting bytes would pad the numbers
  // one column too far right.
  Document d;
  d.table(device_table());
  const std::string text = d.to_text();
  const auto first_end = text.find('\n');
  const auto second_end = text.find('\n', first_end + 1);
  const auto third_end = text.find('\n', second_end + 1);
  ASSERT_NE(third_end, std::string::npos);
  EXPECT_EQ(first_end, 22u);                       // header: 21 columns, 22 bytes
  EXPECT_EQ(second_end - first_end - 1, 21u);      // "  0        65   300.5"
  EXPECT_EQ(third_end - second_end - 1, 21u);      // "  1         7      80"
}

TEST(DocumentText, WideCellInARowWidensTheColumn) {
  // The row's "105 °C" (6 columns, 7 bytes) is wider than its "temp" header
  // (4): the header is right-aligned to 6 columns.
  Document d;
  d.table(TextTable{{"GPU", "temp"}, {{"0", "105 °C"}, {"1", "9 °C"}}, 1});
  EXPECT_EQ(d.to_text(),
            "  GPU   temp\n"
            "  0   105 °C\n"
            "  1     9 °C\n");
}

TEST(DocumentText, TrailingPaddingIsTrimmed) {
  // Both columns are text (first_numeric_column past the end): left-aligned,
  // and the header's "note" padded to 9 would end in spaces.
  Document d;
  d.heading("Notes");
  d.table(TextTable{{"name", "note"}, {{"a", "long note"}}, 2});
  EXPECT_EQ(d.to_text(),
            "Notes\n"
            "  name note\n"
            "  a    long note\n");
}

TEST(DocumentText, MissingCellsAreBlank) {
  // A short row: the missing cells are empty and the padding trimmed.
  Document d;
  d.table(TextTable{{"GPU", "util", "mem"}, {{"0"}, {"1", "95"}}, 1});
  EXPECT_EQ(d.to_text(),
            "  GPU util mem\n"
            "  0\n"
            "  1     95\n");
}

TEST(DocumentText, EverySectionIsSeparatedAndIndented) {
  Document d;
  d.title("T");
  d.heading("A");
  d.line("a1");
  d.heading("B");
  d.line("b1");
  EXPECT_EQ(d.to_text(), "T\n\nA\n  a1\n\nB\n  b1\n");
}

TEST(DocumentText, EmptyDocumentIsEmpty) {
  const Document d;
  EXPECT_EQ(d.to_text(), "");
  EXPECT_EQ(d.to_markdown(), "");
}

TEST(DocumentMarkdown, HeadingsListItemsAndPipeTables) {
  Document d;
  d.title("Run 42");
  d.line("a | b");
  d.heading("Devices");
  d.table(TextTable{{"GPU", "Temp °C"}, {{"0", "65"}, {"1|2", "7"}}, 1});
  d.line("after");
  // Title "#", heading "##", each followed by a blank line; lines are list
  // items; the alignment row has "---" for text and "---:" for numeric
  // columns; '|' in a cell or a line is escaped; a blank line ends the table.
  const std::string want =
      "# Run 42\n"
      "\n"
      "- a \\| b\n"
      "\n"
      "## Devices\n"
      "\n"
      "| GPU | Temp °C |\n"
      "| --- | ---: |\n"
      "| 0 | 65 |\n"
      "| 1\\|2 | 7 |\n"
      "\n"
      "- after\n";
  EXPECT_EQ(d.to_markdown(), want);
}

TEST(DocumentMarkdown, TableAfterAListGetsABlankLine) {
  // Without it, Markdown would read the table as part of the list item.
  Document d;
  d.line("x");
  d.table(TextTable{{"k", "v"}, {{"a", "1"}}, 1});
  EXPECT_EQ(d.to_markdown(),
            "- x\n"
            "\n"
            "| k | v |\n"
            "| --- | ---: |\n"
            "| a | 1 |\n"
            "\n");
}

TEST(DocumentMarkdown, AlignmentRowFollowsFirstNumericColumn) {
  Document d;
  d.table(TextTable{{"a", "b", "c"}, {{"x", "y", "1"}}, 2});
  d.table(TextTable{{"a", "b"}, {{"x", "y"}}, 2});
  d.table(TextTable{{"n"}, {{"1"}}, 0});
  EXPECT_EQ(d.to_markdown(),
            "| a | b | c |\n"
            "| --- | --- | ---: |\n"
            "| x | y | 1 |\n"
            "\n"
            "| a | b |\n"
            "| --- | --- |\n"
            "| x | y |\n"
            "\n"
            "| n |\n"
            "| ---: |\n"
            "| 1 |\n"
            "\n");
}

TEST(DocumentMarkdown, ShortRowsAreFilledWithEmptyCells) {
  Document d;
  d.table(TextTable{{"GPU", "util", "mem"}, {{"0"}}, 1});
  EXPECT_EQ(d.to_markdown(),
            "| GPU | util | mem |\n"
            "| --- | ---: | ---: |\n"
            "| 0 |  |  |\n"
            "\n");
}

// Every line of `text` with its display width.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

TEST(DocumentText, LongLinesFoldAtSpacesNeverInsideAWord) {
  // 30 words of 9 letters: 299 columns on one line before.
  std::string words;
  for (int i = 0; i < 30; ++i) words += (i ? " word" : "word") + std::to_string(1000 + i);
  Document d;
  d.heading("Run");
  d.line(words);
  const auto lines = lines_of(d.to_text());
  ASSERT_GE(lines.size(), 4u);  // "Run", then the folded line
  EXPECT_EQ(lines[0], "Run");
  std::string joined;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_LE(display_width(lines[i]), 100u) << lines[i];
    // First line indented by the section, the others hang further in.
    EXPECT_EQ(lines[i].rfind(i == 1 ? "  word" : "      word", 0), 0u) << lines[i];
    EXPECT_NE(lines[i].back(), ' ');
    const std::size_t text = lines[i].find_first_not_of(' ');
    joined += (joined.empty() ? "" : " ") + lines[i].substr(text);
  }
  EXPECT_EQ(joined, words);  // every word whole, in order
}

TEST(DocumentText, AWordLongerThanTheLineStandsAloneUncut) {
  const std::string path = "/data/" + std::string(120, 'x') + "/checkpoint.pt";
  Document d;
  d.line("saved to " + path + " after epoch 3");
  EXPECT_EQ(d.to_text(), "saved to\n    " + path + "\n    after epoch 3\n");
}

TEST(DocumentText, ALongLastTextCellFoldsUnderItsColumn) {
  std::string message;
  for (int i = 0; i < 20; ++i) message += (i ? " part" : "part") + std::to_string(10 + i);
  Document d;
  d.table(TextTable{{"time", "kind", "message"}, {{"12:00:01.000", "mark", message}, {"12:00:02.000", "x", "ok"}}, 99});
  const auto lines = lines_of(d.to_text());
  ASSERT_GE(lines.size(), 4u);
  const std::size_t column = lines[0].find("message");
  EXPECT_EQ(lines[1].find("part10"), column);
  std::string joined = lines[1].substr(column);
  std::size_t i = 2;
  for (; i < lines.size() && !lines[i].starts_with("  12:"); ++i) {
    EXPECT_LE(display_width(lines[i]), 100u);
    EXPECT_EQ(lines[i].find_first_not_of(' '), column) << lines[i];
    joined += " " + lines[i].substr(column);
  }
  EXPECT_EQ(joined, message);
  ASSERT_LT(i, lines.size());
  EXPECT_EQ(lines[i], "  12:00:02.000 x    ok");
}

}  // namespace
}  // namespace gpuwatch
