#include "import/limits.h"

#include <optional>
#include <vector>

#include <fmt/format.h>

#include "core/text_width.h"
#include "import/import.h"

namespace gpuwatch {

namespace {

constexpr std::size_t kShownKeyBytes = 40;

// A key as the message shows it: no control characters, not too long.
std::string shown_key(std::string_view key) {
  const bool cut = key.size() > kShownKeyBytes;
  std::string out(cut ? prefix_fitting(key, kShownKeyBytes) : key);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return cut ? out + "…" : out;
}

struct Frame {
  bool object = false;
  bool expect_key = true;  // objects: the next string is a key
  std::string key;         // objects: the current key
  std::size_t index = 0;   // arrays: the current element
};

std::string path_of(const std::vector<Frame>& stack) {
  std::string out;
  for (const Frame& f : stack) {
    if (!f.object) {
      out += fmt::format("[{}]", f.index);
    } else if (!f.key.empty()) {
      out += (out.empty() ? "" : ".") + f.key;
    }
  }
  return out;
}

// The closing quote of the string that opens at text[i], or nullopt when
// the text ends inside it.
std::optional<std::size_t> closing_quote(std::string_view text, std::size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i;
    }
  }
  return std::nullopt;
}

}  // namespace

void record_too_long(std::string_view where, std::string_view field) {
  throw ImportError(fmt::format(
      "{}: a record longer than {}, {}: gpuwatch reads records (a line, an array element, a CSV row) of up to {} "
      "(is this a file of GPU samples?); nothing was imported",
      where, kMaxRecordShown, field.empty() ? "outside any field" : fmt::format("in the field \"{}\"", field),
      kMaxRecordShown));
}

std::string_view checked_name(std::string_view value, std::string_view field, const ImportNotes& notes) {
  if (value.size() <= kMaxNameBytes) return value;
  throw ImportError(fmt::format("{}: the field \"{}\" is {} bytes long, longer than the {} bytes a name may have "
                                "(is this a file of GPU samples?); nothing was imported",
                                notes.where(), field, value.size(), kMaxNameBytes));
}

std::string json_path_at(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::vector<Frame> stack;
  for (std::size_t i = 0; i < pos; ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::optional<std::size_t> close = closing_quote(text, i);
      const std::size_t end = close.value_or(text.size());
      const bool is_key = !stack.empty() && stack.back().object && stack.back().expect_key;
      if (is_key) stack.back().key = shown_key(text.substr(i + 1, end - i - 1));
      if (!close || *close >= pos) break;  // `pos` is inside this string
      i = *close;
      continue;
    }
    switch (c) {
      case '{':
      case '[':
        stack.emplace_back().object = c == '{';
        break;
      case '}':
      case ']':
        if (!stack.empty()) stack.pop_back();
        break;
      case ':':
        if (!stack.empty()) stack.back().expect_key = false;
        break;
      case ',':
        if (!stack.empty() && stack.back().object) {
          stack.back().expect_key = true;
          stack.back().key.clear();
        } else if (!stack.empty()) {
          ++stack.back().index;
        }
        break;
      default: break;
    }
  }
  return path_of(stack);
}

}  // namespace gpuwatch
