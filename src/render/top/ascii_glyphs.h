// `top`'s screen for a terminal without a UTF-8 locale: ncursesw there would
// print each byte of a block character as a `M-b`-style sequence, several
// columns wide, and every line would wrap. Each character becomes ASCII of
// the same width instead, graph bars keeping their height.
#pragma once

#include <string>
#include <string_view>

namespace gpuwatch {

std::string ascii_glyphs(std::string_view utf8);

}  // namespace gpuwatch
