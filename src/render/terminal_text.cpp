#include "render/terminal_text.h"

#include <fmt/format.h>

#include "core/utf8.h"

namespace gpuwatch {

namespace {

void append_escaped_byte(std::string& out, unsigned char c) {
  switch (c) {
    case '\n': out += "\\n"; return;
    case '\t': out += "\\t"; return;
    case '\r': out += "\\r"; return;
    default: out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
  }
}

std::string escaped(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (is_unsafe_on_terminal(c) && !(keep_newlines && c == '\n')) {
        append_escaped_byte(out, c);
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) {
      append_escaped_byte(out, c);
      ++i;
      continue;
    }
    const char32_t cp = utf8_decode(text, i, n);
    if (is_unsafe_on_terminal(cp)) {
      out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(cp));
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace

std::string terminal_safe(std::string_view text) { return escaped(text, false); }

std::string terminal_safe_lines(std::string_view text) { return escaped(text, true); }

bool write_terminal_text(std::FILE* out, std::string_view text) {
  const std::string safe = terminal_safe_lines(text);
  return std::fwrite(safe.data(), 1, safe.size(), out) == safe.size();
}

}  // namespace gpuwatch
