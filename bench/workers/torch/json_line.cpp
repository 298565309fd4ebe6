#include "json_line.h"

#include <cmath>
#include <iostream>

#include "base/json_writer.h"  // gpuwatch's one quoting and number layout

namespace gpuwatch::bench_torch {

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
  body_ += std::to_string(value);  // as JsonWriter: plain decimal
  return *this;
}

JsonLine& JsonLine::field(std::string_view key, double value) {
  if (!std::isfinite(value)) return null_field(key);
  begin_field(key);
  append_json_number(body_, value);
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
