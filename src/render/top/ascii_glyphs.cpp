#include "render/top/ascii_glyphs.h"

#include "core/text_width.h"
#include "core/utf8.h"

namespace gpuwatch {

namespace {

// One column of ASCII for a one-column character; '?' for what has none.
char one_column(char32_t cp) {
  // Lower eighth blocks ▁..█ (graph bars): rising marks.
  if (cp >= 0x2581 && cp <= 0x2588) return "_.-=+*##"[cp - 0x2581];
  // Left eighth blocks ▉..▏ (the fractional end of a meter): partly filled.
  if (cp >= 0x2589 && cp <= 0x258F) return '#';
  if (cp >= 0x2580 && cp <= 0x259F) return '#';
  if (cp == 0x2800) return ' ';                   // empty braille cell
  if (cp > 0x2800 && cp <= 0x28FF) return ':';   // braille graph dots
  if (cp == 0x2502 || cp == 0x2503) return '|';
  if (cp >= 0x2500 && cp <= 0x257F) return cp <= 0x2501 ? '-' : '+';
  switch (cp) {
    case 0x2013:
    case 0x2014: return '-';
    case 0x2026: return '.';
    case 0x2191: return '^';
    case 0x2193: return 'v';
    case 0x2190: return '<';
    case 0x2192: return '>';
    case 0x00B0: return ' ';  // 34°C reads 34 C
    case 0x00B7: return '.';
    case 0x00D7: return 'x';
    default: return '?';
  }
}

}  // namespace

std::string ascii_glyphs(std::string_view utf8) {
  std::string out;
  out.reserve(utf8.size());
  for (std::size_t i = 0; i < utf8.size();) {
    const std::size_t n = utf8_sequence_length(utf8, i);
    if (n == 1) {
      out.push_back(utf8[i++]);
      continue;
    }
    if (n == 0) {  // not UTF-8: a terminal shows one replacement character
      out.push_back('?');
      ++i;
      continue;
    }
    const char32_t cp = utf8_decode(utf8, i, n);
    const int columns = codepoint_width(cp);
    if (columns == 1) {
      out.push_back(one_column(cp));
    } else if (columns == 2) {
      out += "??";
    }
    i += n;
  }
  return out;
}

}  // namespace gpuwatch
