#include "json_line.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace gpuwatch::bench_torch {

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          std::array<char, 8> escaped{};
          std::snprintf(escaped.data(), escaped.size(), "\\u%04x", static_cast<unsigned>(c));
          out += escaped.data();
        } else {
          out.push_back(c);  // torch and CUDA messages are UTF-8 or ASCII
        }
    }
  }
  out.push_back('"');
  return out;
}

void JsonLine::begin_field(std::string_view key) {
  if (body_.size() > 1) body_.push_back(',');
  body_ += json_quote(key);
  body_.push_back(':');
}

JsonLine& JsonLine::field(std::string_view key, std::string_view value) {
  begin_field(key);
  body_ += json_quote(value);
  return *this;
}

JsonLine& JsonLine::field(std::string_view key, bool value) {
  begin_field(key);
  body_ += value ? "true" : "false";
  return *this;
}

JsonLine& JsonLine::field(std::string_view key, std::int64_t value) {
  begin_field(key);
  body_ += std::to_string(value);
  return *this;
}

JsonLine& JsonLine::field(std::string_view key, double value) {
  if (!std::isfinite(value)) return null_field(key);
  begin_field(key);
  // Shortest text that reads back as the same double.
  std::array<char, 32> text{};
  const auto [end, ec] = std::to_chars(text.data(), text.data() + text.size(), value);
  body_.append(text.data(), ec == std::errc() ? end : text.data());
  return *this;
}

JsonLine& JsonLine::null_field(std::string_view key) {
  begin_field(key);
  body_ += "null";
  return *this;
}

JsonLine& JsonLine::raw_field(std::string_view key, std::string_view json) {
  begin_field(key);
  body_ += json;
  return *this;
}

void emit(const JsonLine& line) {
  std::cout << line.str() << '\n' << std::flush;
}

void emit_error(std::string_view message) {
  emit(JsonLine().field("type", "error").field("message", message));
  std::cerr << "gpuwatch-bench-torch: " << message << '\n';
}

}  // namespace gpuwatch::bench_torch
