#include "core/text_width.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(TextWidth, WideCharactersTakeTwoColumnsAndMarksNone) {
  EXPECT_EQ(display_width("train"), 5u);
  EXPECT_EQ(display_width("°C −1.5 …"), 9u);       // one column each, though 2 or 3 bytes
  EXPECT_EQ(display_width("训练"), 4u);              // CJK
  EXPECT_EQ(display_width("ｔｅｓｔ"), 8u);          // fullwidth Latin
  EXPECT_EQ(display_width("학습"), 4u);              // Hangul syllables
  EXPECT_EQ(display_width("🚀"), 2u);                // emoji
  EXPECT_EQ(display_width("e\u0301"), 1u);           // e + combining acute
  EXPECT_EQ(display_width("👍🏽"), 2u);                // skin tone merges
  EXPECT_EQ(display_width("a\u200Bb"), 2u);          // zero-width space
  EXPECT_EQ(display_width("\xff" "ab"), 3u);         // an invalid byte shows as one replacement character
}

TEST(TextWidth, CodepointWidthAtRangeEdges) {
  EXPECT_EQ(codepoint_width(0x10FF), 1);
  EXPECT_EQ(codepoint_width(0x1100), 2);
  EXPECT_EQ(codepoint_width(0x115F), 2);
  EXPECT_EQ(codepoint_width(0x3000), 2);   // ideographic space (F)
  EXPECT_EQ(codepoint_width(0x303F), 1);
  EXPECT_EQ(codepoint_width(0xFF01), 2);
  EXPECT_EQ(codepoint_width(0xFF61), 1);   // halfwidth katakana
  EXPECT_EQ(codepoint_width(0x1F600), 2);
  EXPECT_EQ(codepoint_width(0x20000), 2);
  EXPECT_EQ(codepoint_width(0x0300), 0);
  EXPECT_EQ(codepoint_width(0xFE0F), 0);
  EXPECT_EQ(codepoint_width(0x07), 0);
}

TEST(TextWidth, PrefixFittingNeverSplitsAWideCharacter) {
  EXPECT_EQ(prefix_fitting("训练模型", 3), "训");
  EXPECT_EQ(prefix_fitting("训练模型", 4), "训练");
  EXPECT_EQ(prefix_fitting("abc", 10), "abc");
  EXPECT_EQ(prefix_fitting("e\u0301x", 1), "e\u0301");  // the mark stays with its letter
  EXPECT_EQ(prefix_fitting("🚀a", 1), "");
}

}  // namespace
}  // namespace gpuwatch
