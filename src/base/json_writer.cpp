#include "base/json_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "core/utf8.h"

namespace gpuwatch {

namespace {

// \u followed by four hex digits: a code point below U+10000.
void append_unicode_escape(std::string& out, std::uint32_t code_point) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(code_point >> shift) & 0xf]);
}

template <typename Integer>
void append_integer(std::string& out, Integer i) {
  std::array<char, 24> text{};
  const auto result = std::to_chars(text.data(), text.data() + text.size(), i);
  out.append(text.data(), result.ptr);
}

}  // namespace

// The shortest digits that read back as the same double, laid out as the fmt
// library and Python's repr do: plain for exponents from -4 to 15 (0.0001,
// 100, 1234.5), else with an exponent of at least two digits (1e-05,
// 1.5e+16). Standard library only, so that the bench workers (which build
// where none of gpuwatch's packages are) write numbers exactly as gpuwatch.
void append_json_number(std::string& out, double d) {
  std::array<char, 32> text{};
  const auto result = std::to_chars(text.data(), text.data() + text.size(), d, std::chars_format::scientific);
  const std::string_view sci(text.data(), static_cast<std::size_t>(result.ptr - text.data()));
  const std::size_t e_at = sci.find('e');
  int exponent = 0;
  std::from_chars(sci.data() + e_at + (sci[e_at + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exponent);
  if (exponent < -4 || exponent >= 16) {
    out.append(sci);
    return;
  }
  std::string_view mantissa = sci.substr(0, e_at);
  if (mantissa.front() == '-') {
    out.push_back('-');
    mantissa.remove_prefix(1);
  }
  std::string digits(mantissa.substr(0, 1));
  if (mantissa.size() > 2) digits.append(mantissa.substr(2));  // past "d."
  const auto n = static_cast<int>(digits.size());
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-exponent - 1), '0');
    out += digits;
  } else if (exponent >= n - 1) {
    out += digits;
    out.append(static_cast<std::size_t>(exponent - (n - 1)), '0');
  } else {
    out.append(digits, 0, static_cast<std::size_t>(exponent + 1));
    out.push_back('.');
    out.append(digits, static_cast<std::size_t>(exponent + 1));
  }
}

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
  // Keys and most names are printable ASCII that needs no escape: copied
  // whole (a byte at a time was a sixth of `export --format jsonl`'s time).
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; });
  if (plain) {
    out.append(s);
    out.push_back('"');
    return out;
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      if (const std::size_t n = utf8_sequence_length(s, i)) {
        if (const char32_t cp = utf8_decode(s, i, n); is_unsafe_on_terminal(cp)) {
          append_unicode_escape(out, static_cast<std::uint32_t>(cp));
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
          append_unicode_escape(out, static_cast<unsigned char>(c));
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
  append_json_number(out_, d);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t i) {
  before_value();
  append_integer(out_, i);
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t u) {
  before_value();
  append_integer(out_, u);
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
