// Issue 22 item 10: names from data (an imported gpu_name holding ESC[31m
// and U+202E, a run name with ESC[2J) are shown escaped by every text writer,
// never passed to the terminal.
#include "render/terminal_text.h"

#include <string>

#include <gtest/gtest.h>

#include "render/document.h"
#include "base/json_writer.h"
#include "render/table.h"
#include "render/top/screen.h"

namespace gpuwatch {
namespace {

// A GPU name with a colour sequence and a right-to-left override, as an
// imported seed file may carry.
const std::string kHostileGpu = "H100\x1b[31m red \xE2\x80\xAE" "txt.exe";
const std::string kHostileRun = "run\x1b[2J";

bool has_raw_control(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7F) return true;
    if (s.compare(i, 3, "\xE2\x80\xAE") == 0) return true;
  }
  return false;
}

TEST(TerminalSafe, EscapesEachControlVisiblyAndByName) {
  EXPECT_EQ(terminal_safe(kHostileGpu), "H100\\x1b[31m red \\u202etxt.exe");
  EXPECT_EQ(terminal_safe(kHostileRun), "run\\x1b[2J");
  EXPECT_EQ(terminal_safe("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(terminal_safe(std::string("nul\0del\x7f", 8)), "nul\\x00del\\x7f");
  // C1 controls as UTF-8 (U+009B is CSI on many terminals) and as a lone
  // byte (CSI to an 8-bit terminal; not UTF-8).
  EXPECT_EQ(terminal_safe("\xC2\x9B" "2J"), "\\u009b2J");
  EXPECT_EQ(terminal_safe("\x9B" "2J"), "\\x9b2J");
  // Every bidirectional embedding, override and isolate.
  for (const char* bidi : {"\xE2\x80\xAA", "\xE2\x80\xAB", "\xE2\x80\xAC", "\xE2\x80\xAD", "\xE2\x80\xAE",
                           "\xE2\x81\xA6", "\xE2\x81\xA7", "\xE2\x81\xA8", "\xE2\x81\xA9"}) {
    const std::string shown = terminal_safe(bidi);
    EXPECT_EQ(shown.substr(0, 4), "\\u20") << shown;
    EXPECT_EQ(shown.size(), 6u) << shown;
  }
}

TEST(TerminalSafe, LeavesTextAlone) {
  for (const std::string text : {"resnet50 bs=256 lr=3e-4", "NVIDIA H100 80GB HBM3", "温度 °C ✓ 🚀", "a\\x1b stays"}) {
    EXPECT_EQ(terminal_safe(text), text);
    EXPECT_EQ(terminal_safe_lines(text), text);
  }
}

TEST(TerminalSafe, LinesKeepsLineBreaksOnly) {
  EXPECT_EQ(terminal_safe_lines("one\x1b]0;title\x07\ntwo\n"), "one\\x1b]0;title\\x07\ntwo\n");
  // Escaping escaped text changes nothing: each writer may apply it again.
  EXPECT_EQ(terminal_safe_lines(terminal_safe(kHostileGpu)), terminal_safe(kHostileGpu));
}

TEST(TerminalSafe, TablesEscapeCellsAndPadByWhatIsShown) {
  Table t;
  t.columns = {{"name"}, {"gpus", true}};
  t.rows = {{kHostileRun, "8"}, {"ok", "1"}};
  const std::string text = render_text_table(t, 100);
  EXPECT_FALSE(has_raw_control(text)) << text;
  EXPECT_EQ(text,
            "name        gpus\n"
            "run\\x1b[2J     8\n"
            "ok             1\n");
  const std::string markdown = render_markdown_table(t);
  EXPECT_FALSE(has_raw_control(markdown)) << markdown;
  EXPECT_NE(markdown.find("run\\x1b[2J"), std::string::npos) << markdown;
}

TEST(TerminalSafe, DocumentsEscapeTitlesLinesAndCellsInBothFormats) {
  Document d;
  d.title("Run " + kHostileRun);
  d.heading("Devices");
  d.line("GPU 0  " + kHostileGpu);
  d.table(TextTable{{"GPU", "name"}, {{"0", kHostileGpu}}, 2});
  for (const std::string& out : {d.to_text(), d.to_markdown()}) {
    EXPECT_FALSE(has_raw_control(out)) << out;
    EXPECT_NE(out.find("Run run\\x1b[2J"), std::string::npos) << out;
    EXPECT_NE(out.find("H100\\x1b[31m red \\u202etxt.exe"), std::string::npos) << out;
  }
}

TEST(TerminalSafe, ProseFoldsTheEscapedText) {
  const std::string text = wrap_text("advice for " + kHostileRun + " now", 100, "", "  ");
  EXPECT_EQ(text, "advice for run\\x1b[2J now\n");
}

TEST(TerminalSafe, TopScreenLinesAreEscaped) {
  ScreenLine line;
  line.add("GPU 0 ").add(kHostileGpu);
  EXPECT_EQ(line.text(), "GPU 0 H100\\x1b[31m red \\u202etxt.exe");
  EXPECT_EQ(line.width(), line.text().size());
}

TEST(TerminalSafe, JsonEscapesWhatATerminalWouldActOn) {
  // Valid JSON either way; escaped, the document is also safe to print.
  EXPECT_EQ(json_quote(kHostileGpu), "\"H100\\u001b[31m red \\u202etxt.exe\"");
  EXPECT_EQ(json_quote("del\x7f c1\xC2\x9B ok \xE2\x84\x83"), "\"del\\u007f c1\\u009b ok \xE2\x84\x83\"");
}

TEST(TerminalSafe, WritesTheSafeText) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(write_terminal_text(f, "a " + kHostileRun + "\n"));
  std::rewind(f);
  char buffer[64] = {};
  const std::size_t n = std::fread(buffer, 1, sizeof buffer - 1, f);
  std::fclose(f);
  EXPECT_EQ(std::string(buffer, n), "a run\\x1b[2J\n");
}

}  // namespace
}  // namespace gpuwatch
