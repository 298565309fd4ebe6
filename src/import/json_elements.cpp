#include "import/json_elements.h"

#include "core/utf8.h"

namespace gpuwatch {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_space(text[pos])) ++pos;
  return pos;
}

// Characters of numbers and of the literals true, false, null (and Python's
// NaN, Infinity).
bool is_scalar_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '+' ||
         c == '.';
}

// One past the closing quote of the string that opens at text[pos].
std::size_t string_end(std::string_view text, std::size_t pos) {
  for (std::size_t i = pos + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return kNoPosition;
}

bool starts_with_at(std::string_view text, std::size_t pos, std::string_view word) {
  return text.substr(pos, word.size()) == word;
}

// Length of Python's NaN, Infinity or -Infinity at text[pos], else 0.
// Outside strings these words are never valid JSON, so replacing them
// cannot change the meaning of a valid text.
std::size_t non_finite_word_at(std::string_view text, std::size_t pos) {
  using namespace std::string_view_literals;
  switch (text[pos]) {
    case 'N': return starts_with_at(text, pos, "NaN"sv) ? 3 : 0;
    case 'I': return starts_with_at(text, pos, "Infinity"sv) ? 8 : 0;
    case '-': return starts_with_at(text, pos, "-Infinity"sv) ? 9 : 0;
    default: return 0;
  }
}

}  // namespace

std::size_t skip_bom_and_space(std::string_view text) {
  const std::size_t pos = starts_with_at(text, 0, "\xEF\xBB\xBF") ? 3 : 0;
  return skip_space(text, pos);
}

std::size_t json_value_end(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return kNoPosition;
  const char first = text[pos];
  if (first == '"') return string_end(text, pos);
  if (first == '{' || first == '[') {
    std::size_t depth = 0;
    for (std::size_t i = pos; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '"') {
        const std::size_t end = string_end(text, i);
        if (end == kNoPosition) return kNoPosition;
        i = end - 1;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
    }
    return kNoPosition;
  }
  if (!is_scalar_char(first)) return pos;
  std::size_t i = pos;
  while (i < text.size() && is_scalar_char(text[i])) ++i;
  // A number that runs into the end of the file may have lost digits.
  return i == text.size() ? kNoPosition : i;
}

ArrayScan scan_json_array(std::string_view text) {
  ArrayScan scan;
  std::size_t pos = skip_bom_and_space(text);
  if (pos < text.size() && text[pos] == '[') ++pos;
  while (true) {
    pos = skip_space(text, pos);
    if (pos >= text.size()) break;
    if (text[pos] == ']') {
      scan.closed = true;
      ++pos;
      break;
    }
    const std::size_t end = json_value_end(text, pos);
    if (end == kNoPosition) {
      scan.partial_element = true;
      pos = text.size();
      break;
    }
    if (end == pos) break;  // no element can start here: garbage
    scan.elements.push_back(text.substr(pos, end - pos));
    pos = skip_space(text, end);
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    if (pos < text.size() && text[pos] == ']') {
      scan.closed = true;
      ++pos;
    }
    break;
  }
  pos = skip_space(text, pos);
  if (pos < text.size()) {
    scan.garbage_offset = pos;
    scan.garbage_bytes = text.size() - pos;
  }
  return scan;
}

std::string clean_json_text(std::string_view raw, CleanCounts& counts) {
  std::string out;
  out.reserve(raw.size() + 16);
  bool in_string = false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (in_string) {
      if (c == '\\' && i + 1 < raw.size()) {
        out.push_back(c);
        out.push_back(raw[++i]);
        continue;
      }
      if (c == '"') in_string = false;
      const std::size_t n = utf8_sequence_length(raw, i);
      if (n == 0) {
        out += kReplacementCharacter;
        ++counts.invalid_utf8;
      } else {
        out.append(raw.substr(i, n));
        i += n - 1;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (const std::size_t n = non_finite_word_at(raw, i)) {
      out += "null";
      i += n - 1;
      ++counts.non_finite;
      continue;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace gpuwatch
