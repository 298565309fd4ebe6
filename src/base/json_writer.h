// A small streaming JSON writer: enough for reports and exports, with correct
// string escaping and null for values that are absent or not finite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out, bool pretty = false) : out_(out), pretty_(pretty) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(double d);  // NaN and infinities become null
  JsonWriter& value(std::int64_t i);
  JsonWriter& value(int i) { return value(static_cast<std::int64_t>(i)); }
  JsonWriter& value(std::uint64_t u);
  JsonWriter& value(bool b);
  JsonWriter& null();
  template <typename T>
  JsonWriter& value(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }

  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }

 private:
  void before_value();
  void newline();
  std::string& out_;
  bool pretty_;
  std::vector<bool> has_items_;  // per open container
  bool after_key_ = false;
};

// What json_quote does with bytes that are not UTF-8: replaced by U+FFFD
// (every document), or kept as they are, for a reader that wants the exact
// bytes back (the store's argv column, store/command_json.h).
enum class InvalidUtf8 { Replace, Keep };

// JSON string literal with quotes, escaped.
std::string json_quote(std::string_view s, InvalidUtf8 invalid = InvalidUtf8::Replace);

// A finite double as JSON: the shortest text that reads back as the same
// double (the caller writes null for NaN and infinities).
void append_json_number(std::string& out, double d);

}  // namespace gpuwatch
