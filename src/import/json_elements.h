// Finding the complete elements of a top-level JSON array that may be cut
// anywhere. gputop.py rewrote its whole array every second without
// atomicity, so its files often end inside an element, lack the closing ']',
// or carry bytes that never were JSON. The scanner only delimits elements by
// their nesting and strings; simdjson then parses each one on its own, so
// one damaged element costs that element and nothing else.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "import/text_source.h"

namespace gpuwatch {

inline constexpr std::size_t kNoPosition = std::string_view::npos;

struct ArrayScan {
  std::vector<std::string_view> elements;  // complete elements, raw text, in file order
  bool partial_element = false;             // the text ends inside one more element
  bool closed = false;                      // the array's ']' was found
  std::size_t garbage_offset = kNoPosition;  // where bytes that are no element begin
  std::size_t garbage_bytes = 0;
};

// Byte offset of the first byte after a UTF-8 byte-order mark and whitespace.
std::size_t skip_bom_and_space(std::string_view text);

// Calls on_element with the raw text of each complete element of the array
// that `in` holds (after an optional BOM and whitespace, it must start with
// '['; the caller checks), as it is read: an element's text is valid only
// during the call. Returns the scan's findings; `elements` stays empty.
ArrayScan scan_json_array(TextSource& in, const std::function<void(std::string_view)>& on_element);
// The same over text in memory, with every element in `elements`.
ArrayScan scan_json_array(std::string_view text);

// One past the end of the JSON value that starts at text[pos]; kNoPosition
// when the text ends before the value does; `pos` itself when no value can
// start there. Only nesting, strings and escapes are followed, not grammar.
std::size_t json_value_end(std::string_view text, std::size_t pos);

struct CleanCounts {
  std::size_t non_finite = 0;    // NaN, Infinity, -Infinity written by Python's json
  std::size_t invalid_utf8 = 0;  // bytes in strings that were not UTF-8
};

// A copy of one JSON text that simdjson accepts where Python's json module
// wrote bare NaN/Infinity (they become null: not a measurement) and where
// strings hold bytes that are not UTF-8 (they become U+FFFD).
std::string clean_json_text(std::string_view raw, CleanCounts& counts);

}  // namespace gpuwatch
