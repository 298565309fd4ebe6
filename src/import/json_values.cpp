#include "import/json_values.h"

#include <charconv>
#include <cmath>
#include <string>

#include "import/json_elements.h"

namespace gpuwatch {

namespace dom = simdjson::dom;

std::optional<dom::element> ElementParser::parse(std::string_view raw, ImportNotes& notes) {
  dom::element element;
  // Nearly every record is clean JSON already: parsed as it is (simdjson
  // checks its UTF-8 and refuses bare NaN, which is all the cleaning
  // changes), and cleaned first only when that fails. Cleaning every record
  // a byte at a time was a fifth of importing a jsonl export (issue 25).
  if (parser_.parse(raw.data(), raw.size(), true).get(element) == simdjson::SUCCESS) return element;
  const simdjson::padded_string text(clean_json_text(raw, notes.clean));
  if (parser_.parse(text).get(element) != simdjson::SUCCESS) return std::nullopt;
  return element;
}

std::optional<dom::element> field(dom::object object, std::string_view key) {
  dom::element value;
  if (object.at_key(key).get(value) != simdjson::SUCCESS) return std::nullopt;
  return value;
}

std::optional<dom::object> object_field(dom::object object, std::string_view key) {
  dom::object value;
  if (object.at_key(key).get(value) != simdjson::SUCCESS) return std::nullopt;
  return value;
}

std::string_view string_field(dom::object object, std::string_view key) {
  std::string_view value;
  if (object.at_key(key).get(value) != simdjson::SUCCESS) return {};
  return value;
}

bool true_field(simdjson::dom::object object, std::string_view key) {
  bool b = false;
  return object.at_key(key).get(b) == simdjson::SUCCESS && b;
}

std::optional<double> number_of(dom::element value, ImportNotes& notes) {
  switch (value.type()) {
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE: {
      double d = 0;
      if (value.get_double().get(d) != simdjson::SUCCESS || !std::isfinite(d)) return std::nullopt;
      return d;
    }
    case dom::element_type::NULL_VALUE: return std::nullopt;
    case dom::element_type::STRING: {
      std::string_view s = value.get_string().value_unsafe();
      while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
      while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
      double d = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
      if (!s.empty() && ec == std::errc() && end == s.data() + s.size() && std::isfinite(d)) {
        ++notes.numeric_strings;
        return d;
      }
      ++notes.unreadable_values;
      return std::nullopt;
    }
    default:
      ++notes.unreadable_values;
      return std::nullopt;
  }
}

std::optional<double> number_field(dom::object object, std::string_view key, ImportNotes& notes) {
  const auto value = field(object, key);
  return value ? number_of(*value, notes) : std::nullopt;
}

std::optional<int> gpu_index_of(dom::element value, ImportNotes& notes) {
  const auto v = number_of(value, notes);
  if (!v || *v < 0 || *v > kMaxGpuIndex || *v != std::floor(*v)) return std::nullopt;
  return static_cast<int>(*v);
}

}  // namespace gpuwatch
