// A request's target ("/api/runs/ID/series?metric=...") taken apart, for the
// dashboard's routes. Outside input: every byte is checked, nothing is
// trusted to be a path on disk (nothing is ever read from disk by name).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch {

struct RequestTarget {
  // The path's segments, each percent-decoded on its own: "%2F" inside a
  // segment is a slash in that segment, never a separator.
  std::vector<std::string> segments;
  std::map<std::string, std::string, std::less<>> params;  // the query's, decoded ('+' is a space)

  [[nodiscard]] std::optional<std::string_view> param(std::string_view name) const;
};

// At most this many query parameters, and this long a target: the module
// already caps a request's headers at 8 KiB.
inline constexpr std::size_t kMaxQueryParams = 32;
inline constexpr std::size_t kMaxTargetBytes = 4096;

// nullopt for a target that is not an absolute path, is too long, has a bad
// percent escape, a NUL or control byte anywhere once decoded, a "." or ".."
// segment, too many parameters or one given twice.
std::optional<RequestTarget> parse_request_target(std::string_view target);

// "%41b+c" -> "Ab c" when `plus_is_space`; nullopt for a bad escape.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space);

}  // namespace gpuwatch
