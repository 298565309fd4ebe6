// Reading values out of parsed JSON elements, with the seed files' habits
// handled on purpose: numbers written as strings, NaN, nulls for absent.
#pragma once

#include <optional>
#include <string_view>

#include <simdjson.h>

#include "import/import_notes.h"

namespace gpuwatch {

// Parses one element of a file (after clean_json_text). The element stays
// valid until the next parse.
class ElementParser {
 public:
  // nullopt when the text is not valid JSON.
  std::optional<simdjson::dom::element> parse(std::string_view raw, ImportNotes& notes);

 private:
  simdjson::dom::parser parser_;
};

std::optional<simdjson::dom::element> field(simdjson::dom::object object, std::string_view key);
std::optional<simdjson::dom::object> object_field(simdjson::dom::object object, std::string_view key);
// "" when absent or not a string.
std::string_view string_field(simdjson::dom::object object, std::string_view key);
// Whether the field is JSON `true` (anything else, or absent, is not).
bool true_field(simdjson::dom::object object, std::string_view key);

// A measurement: a finite JSON number, or a string that holds one entirely
// (the seed tools wrote some numbers through str(); counted in `notes`).
// null, NaN and absent fields are absent; booleans, words, lists and objects
// are absent and counted as unreadable.
std::optional<double> number_of(simdjson::dom::element value, ImportNotes& notes);
std::optional<double> number_field(simdjson::dom::object object, std::string_view key, ImportNotes& notes);

// A GPU index as `--gpus` takes them: an integer from 0 to kMaxGpuIndex.
inline constexpr int kMaxGpuIndex = 1023;
std::optional<int> gpu_index_of(simdjson::dom::element value, ImportNotes& notes);

}  // namespace gpuwatch
