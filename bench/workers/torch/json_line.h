// One JSON object per line on stdout: the worker protocol of gpuwatch bench
// (docs/bench-workers.md). Strings and numbers are written by gpuwatch's own
// JSON writer (src/base/json_writer.cpp, compiled in: standard library only,
// so the worker still builds on GPU machines that have libtorch and a
// compiler but none of gpuwatch's packages); this adds only the line's shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::bench_torch {

class JsonLine {
 public:
  JsonLine& field(std::string_view key, std::string_view value);
  JsonLine& field(std::string_view key, const char* value) { return field(key, std::string_view(value)); }
  JsonLine& field(std::string_view key, const std::string& value) { return field(key, std::string_view(value)); }
  JsonLine& field(std::string_view key, bool value);
  JsonLine& field(std::string_view key, std::int64_t value);
  JsonLine& field(std::string_view key, int value) { return field(key, static_cast<std::int64_t>(value)); }
  JsonLine& field(std::string_view key, double value);  // not finite: null
  JsonLine& null_field(std::string_view key);
  // `json` must already be valid JSON (a nested object or array).
  JsonLine& raw_field(std::string_view key, std::string_view json);
  template <typename T>
  JsonLine& field(std::string_view key, const std::optional<T>& value) {
    return value ? field(key, *value) : null_field(key);
  }

  std::string str() const { return body_ + "}"; }

 private:
  void begin_field(std::string_view key);
  std::string body_ = "{";
};

// Writes the object as one line on stdout and flushes, so that the parent
// sees each line as soon as it is complete.
void emit(const JsonLine& line);

// {"type":"error","message":...}, also echoed on stderr for a human.
void emit_error(std::string_view message);

}  // namespace gpuwatch::bench_torch
