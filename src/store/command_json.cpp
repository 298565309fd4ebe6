#include "store/command_json.h"

#include <cstdint>

#include "base/json_writer.h"

namespace gpuwatch {
namespace {

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::optional<std::vector<std::string>> array() {
    std::vector<std::string> out;
    skip_ws();
    if (!eat('[')) return std::nullopt;
    skip_ws();
    if (eat(']')) return finish(std::move(out));
    while (true) {
      skip_ws();
      auto str = string();
      if (!str) return std::nullopt;
      out.push_back(std::move(*str));
      skip_ws();
      if (eat(']')) return finish(std::move(out));
      if (!eat(',')) return std::nullopt;
    }
  }

 private:
  std::optional<std::vector<std::string>> finish(std::vector<std::string> out) {
    skip_ws();
    if (pos_ != s_.size()) return std::nullopt;
    return out;
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<std::uint32_t> hex4() {
    if (s_.size() - pos_ < 4) return std::nullopt;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<std::uint32_t>(c - 'A' + 10);
      else return std::nullopt;
    }
    return v;
  }
  std::optional<std::string> string() {
    if (!eat('"')) return std::nullopt;
    std::string out;
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) return std::nullopt;
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          auto cp = hex4();
          if (!cp) return std::nullopt;
          // A surrogate pair encodes one code point above U+FFFF.
          if (*cp >= 0xd800 && *cp < 0xdc00 && s_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            auto lo = hex4();
            if (!lo || *lo < 0xdc00 || *lo >= 0xe000) return std::nullopt;
            *cp = 0x10000 + ((*cp - 0xd800) << 10) + (*lo - 0xdc00);
          }
          append_utf8(out, *cp);
          break;
        }
        default: return std::nullopt;
      }
    }
    return std::nullopt;  // unterminated
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string encode_argv_json(const std::vector<std::string>& argv) {
  std::string out = "[";
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (i) out += ',';
    out += json_quote(argv[i], InvalidUtf8::Keep);
  }
  out += ']';
  return out;
}

std::optional<std::vector<std::string>> decode_argv_json(std::string_view json) {
  return Parser(json).array();
}

}  // namespace gpuwatch
