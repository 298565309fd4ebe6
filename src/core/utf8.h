// UTF-8 validation shared by the JSON writer (names and argv are bytes, not
// text) and the importers (files cut or damaged mid-character).
#pragma once

#include <cstddef>
#include <string_view>

namespace gpuwatch {

// Length of the valid UTF-8 sequence that starts at s[i] (1 for ASCII), or 0
// if there is none: overlong forms, surrogates, code points above U+10FFFF
// and sequences cut by the end of `s` are all invalid.
constexpr std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(1) < lo || b(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (b(k) < 0x80 || b(k) > 0xBF) return 0;
  }
  return n;
}

// The code point of the valid sequence of n > 1 bytes at s[i] (as
// utf8_sequence_length measured it).
constexpr char32_t utf8_decode(std::string_view s, std::size_t i, std::size_t n) {
  const auto b = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k])); };
  char32_t cp = b(0) & (0xFFu >> (n + 1));
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (b(k) & 0x3F);
  return cp;
}

// U+FFFD, what an invalid byte becomes.
inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

// Whether a code point is shown escaped: C0 controls (U+0000-U+001F), DEL,
// C1 controls (U+0080-U+009F) and the bidirectional embeddings, overrides
// and isolates (U+202A-U+202E, U+2066-U+2069).
constexpr bool is_unsafe_on_terminal(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace gpuwatch
