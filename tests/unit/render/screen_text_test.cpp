// Lines of the top screen as they reach the terminal: cut at its width, and
// in ASCII where no UTF-8 locale could be had.
#include <gtest/gtest.h>

#include <string>

#include "core/text_width.h"
#include "render/top/ascii_glyphs.h"
#include "render/top/screen.h"
#include "render/top/top_screen.h"
#include "top_view_util.h"

namespace gpuwatch {
namespace {

TEST(ScreenLine, CutStopsAtAWideCharacterThatDoesNotFit) {
  ScreenLine line("ab\xE4\xB8\xAD");  // ab中
  line.add("xyz", Style::Dim);
  EXPECT_EQ(line.cut(3).text(), "ab");  // not "abx": what follows must not move up
  EXPECT_EQ(line.cut(4).text(), "ab\xE4\xB8\xAD");
  EXPECT_EQ(line.cut(5).text(), "ab\xE4\xB8\xADx");
}

TEST(AsciiGlyphs, EachCharacterKeepsItsWidthAndGraphsTheirHeight) {
  EXPECT_EQ(ascii_glyphs("plain text"), "plain text");
  EXPECT_EQ(ascii_glyphs("\xE2\x96\x81\xE2\x96\x84\xE2\x96\x88"), "_=#");  // ▁▄█
  EXPECT_EQ(ascii_glyphs("34\xC2\xB0" "C \xE2\x86\x91\xE2\x86\x93 a\xE2\x80\x93" "b\xE2\x80\xA6"), "34 C ^v a-b.");
  EXPECT_EQ(ascii_glyphs("\xE2\xA0\x80\xE2\xA3\xBF"), " :");  // braille: empty, full
  EXPECT_EQ(ascii_glyphs("\xE4\xB8\xAD|"), "??|");             // a wide character: two columns
  EXPECT_EQ(ascii_glyphs("a\xFF" "b"), "a?b");                  // not UTF-8
}

TEST(AsciiGlyphs, AWholeTopScreenBecomesAsciiOfTheSameSize) {
  const TopView view = test::make_top_view(4);
  for (const ScreenLine& line : compose_top_screen(view, 120, 40)) {
    const std::string text = line.text();
    const std::string ascii = ascii_glyphs(text);
    EXPECT_EQ(ascii.size(), display_width(text)) << text;
    for (char c : ascii) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << text;
    for (char c : ascii) EXPECT_LT(static_cast<unsigned char>(c), 0x7F) << text;
  }
}

}  // namespace
}  // namespace gpuwatch
