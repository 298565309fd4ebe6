#include "import/json_elements.h"

#include <fmt/format.h>

#include "core/utf8.h"
#include "import/limits.h"

namespace gpuwatch {

namespace {

std::size_t skip_space(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_json_space(text[pos])) ++pos;
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

ArrayScan scan_json_array(TextSource& in, const std::function<void(std::string_view)>& on_element) {
  ArrayScan scan;
  std::size_t elements = 0;
  if (in.skip_bom_and_space() && in.window().front() == '[') in.consume(1);
  while (in.skip_space()) {
    if (in.window().front() == ']') {
      scan.closed = true;
      in.consume(1);
      break;
    }
    // A value cut by the window's end is looked for again in a window at
    // least twice as large: O(its size) over all tries, up to the limit.
    std::size_t end = json_value_end(in.window(), 0);
    while (end == kNoPosition && in.window().size() <= kMaxRecordBytes && in.more()) {
      end = json_value_end(in.window(), 0);
    }
    if ((end == kNoPosition && in.window().size() > kMaxRecordBytes) || (end != kNoPosition && end > kMaxRecordBytes)) {
      record_too_long(fmt::format("element {} of the array (at byte {})", elements + 1, in.offset()),
                      json_path_at(in.window(), kMaxRecordBytes));
    }
    if (end == kNoPosition) {
      scan.partial_element = true;
      in.consume(in.window().size());
      break;
    }
    if (end == 0) break;  // no element can start here: garbage
    on_element(in.window().substr(0, end));
    ++elements;
    in.consume(end);
    if (!in.skip_space()) break;
    if (in.window().front() == ',') {
      in.consume(1);
      continue;
    }
    if (in.window().front() == ']') {
      scan.closed = true;
      in.consume(1);
    }
    break;
  }
  if (in.skip_space()) {
    scan.garbage_offset = static_cast<std::size_t>(in.offset());
    do {
      scan.garbage_bytes += in.window().size();
      in.consume(in.window().size());
    } while (in.more());
  }
  return scan;
}

ArrayScan scan_json_array(std::string_view text) {
  TextSource in(text);
  std::vector<std::string_view> elements;
  ArrayScan scan = scan_json_array(in, [&elements](std::string_view e) { elements.push_back(e); });
  scan.elements = std::move(elements);
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
