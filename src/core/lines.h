// Reading text a line at a time without copying it.
#pragma once

#include <string_view>

namespace gpuwatch {

// The text up to the next '\n' (or all of it), which is removed from `text`
// together with that '\n'.
inline std::string_view take_line(std::string_view& text) {
  const auto end = text.find('\n');
  const auto line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return line;
}

}  // namespace gpuwatch
