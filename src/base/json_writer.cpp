#include "base/json_writer.h"

#include <cmath>

#include <fmt/format.h>

#include "core/utf8.h"

namespace gpuwatch {

// Process names and argv are bytes, not text (comm is cut at 15 bytes, maybe
// inside a character): invalid UTF-8 becomes U+FFFD so the JSON stays valid.
// What a terminal would act on (controls, DEL, C1, bidi overrides) is
// written as \u escapes, so that JSON printed to a terminal is as safe as
// text (render/terminal_text.h; is_unsafe_on_terminal in core/utf8.h); a
// JSON reader gets the same string back.
std::string json_quote(std::string_view s, InvalidUtf8 invalid) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      if (const std::size_t n = utf8_sequence_length(s, i)) {
        if (const char32_t cp = utf8_decode(s, i, n); is_unsafe_on_terminal(cp)) {
          out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(cp));
        } else {
          out.append(s.substr(i, n));
        }
        i += n - 1;
      } else if (invalid == InvalidUtf8::Keep) {
        out.push_back(c);
      } else {
        out += kReplacementCharacter;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (is_unsafe_on_terminal(static_cast<unsigned char>(c))) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

void JsonWriter::newline() {
  if (!pretty_) return;
  out_.push_back('\n');
  out_.append(has_items_.size() * 2, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) out_.push_back(',');
    has_items_.back() = true;
    newline();
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_.push_back('{');
  has_items_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  const bool had = has_items_.back();
  has_items_.pop_back();
  if (had) newline();
  out_.push_back('}');
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_.push_back('[');
  has_items_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  const bool had = has_items_.back();
  has_items_.pop_back();
  if (had) newline();
  out_.push_back(']');
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  out_ += json_quote(name);
  out_ += pretty_ ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  out_ += json_quote(s);
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  if (!std::isfinite(d)) return null();
  before_value();
  // Shortest text that reads back as the same double.
  fmt::format_to(std::back_inserter(out_), "{}", d);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t i) {
  before_value();
  fmt::format_to(std::back_inserter(out_), "{}", i);
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t u) {
  before_value();
  fmt::format_to(std::back_inserter(out_), "{}", u);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

}  // namespace gpuwatch
