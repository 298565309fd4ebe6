// Text from data shown on a terminal. Run, GPU, host and job names, commands
// and log lines come from files others wrote (an imported seed file, a
// store from another machine): a control character in them could move the
// cursor, recolour or clear the screen, or set the window title, and a
// bidirectional override could reverse what follows it. Every text writer
// (tables, report documents, the top screen, and each command's text output)
// shows them escaped, visibly and so that each escape names its character:
// ESC as \x1b, U+202E as \u202e. The JSON writer escapes the same characters
// as \u sequences, which any JSON reader decodes back to the same text.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "core/utf8.h"

namespace gpuwatch {

// One field (a name, a cell): every unsafe code point escaped, newlines and
// tabs too (\n, \t, \r; other C0 and DEL as \x1b; C1 and bidi as \u202e),
// and every byte that is not UTF-8 as \xNN, since an 8-bit terminal reads a
// lone 0x9B as CSI.
std::string terminal_safe(std::string_view text);

// A whole document (a report, a table): as terminal_safe, but its line
// breaks kept.
std::string terminal_safe_lines(std::string_view text);

// terminal_safe_lines(text) written to `out`: what every command's text
// output goes through. False when it could not be written.
bool write_terminal_text(std::FILE* out, std::string_view text);

}  // namespace gpuwatch
