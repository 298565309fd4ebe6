// How many terminal columns text takes: what every table renderer pads by.
// Bytes are not columns (UTF-8), and neither are code points: CJK and emoji
// take two columns, combining marks none.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpuwatch {

// Columns of one code point: 2 for East Asian Wide and Fullwidth (Unicode
// 15.0 EastAsianWidth.txt, W and F, which includes the emoji shown as
// pictures), 0 for combining marks, zero-width format characters, variation
// selectors and emoji skin-tone modifiers (they merge into the character
// before), and controls; 1 otherwise.
int codepoint_width(char32_t cp);

// Sum of codepoint_width over `text`; an invalid UTF-8 byte counts as one
// column (a terminal shows it as one replacement character).
std::size_t display_width(std::string_view text);

// The longest prefix of `text` that fits in `columns`, ending on a code
// point boundary (a wide character that would straddle the edge is left
// out, with the marks that follow it).
std::string_view prefix_fitting(std::string_view text, std::size_t columns);

}  // namespace gpuwatch
