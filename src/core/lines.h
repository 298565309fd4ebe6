// Reading text a line (or a token) at a time without copying it.
#pragma once

#include <string_view>

namespace gpuwatch {

// The text up to the next '\n' (or all of it), which is removed from `text`
// together with that '\n'.
inline std::string_view take_line(std::string_view& text) {
  const auto end = text.find('\n');
  const auto line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return line;
}

// A space or a tab.
inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

// What trimmed() strips: blanks (HTTP's optional whitespace), blanks and
// line ends (the \r of a file saved with CRLF, a sysfs file's \n), or all
// that std::isspace() calls space (an environment variable).
inline constexpr std::string_view kBlanks = " \t";
inline constexpr std::string_view kWhiteSpace = " \t\r\n";
inline constexpr std::string_view kIsSpace = " \t\r\n\v\f";

// `s` without the characters of `strip` at either end.
inline std::string_view trimmed(std::string_view s, std::string_view strip = kBlanks) {
  const auto first = s.find_first_not_of(strip);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(strip) - first + 1);
}

// The next run of characters that are not blanks or newlines, removed from
// `rest` with what precedes it; empty when none is left.
inline std::string_view take_token(std::string_view& rest) {
  std::size_t i = 0;
  while (i < rest.size() && (is_blank(rest[i]) || rest[i] == '\n')) ++i;
  std::size_t j = i;
  while (j < rest.size() && !is_blank(rest[j]) && rest[j] != '\n') ++j;
  const auto token = rest.substr(i, j - i);
  rest.remove_prefix(j);
  return token;
}

}  // namespace gpuwatch
