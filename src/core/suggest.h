// "Did you mean ...?" for mistyped commands and flags.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpuwatch {

// Edits between a and b, counting a swap of two neighbouring characters as
// one edit (optimal string alignment distance): "recrod" is 1 from "record".
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be what was
// meant: at most 1 edit for words of up to 4 characters, 2 up to 8, 3
// beyond; or a candidate that `word` is the start of ("--form" for
// "--format"). Ties go to the earlier candidate.
std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates);

}  // namespace gpuwatch
