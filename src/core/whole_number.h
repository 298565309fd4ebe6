// Text that must be one number and nothing else, as kernel files print them.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace gpuwatch {

// The whole of `s` as a number of type T in range; nullopt for empty text,
// trailing characters or overflow. from_chars takes no '+', and no '-' for
// an unsigned T, so "-1" and "+1" are malformed there.
template <typename T>
std::optional<T> parse_whole_number(std::string_view s) {
  T value{};
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (s.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

}  // namespace gpuwatch
