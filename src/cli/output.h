// What a command prints on stdout: every text, markdown and JSON document
// goes through here, and through render/terminal_text.h, so that no name from
// the data reaches the terminal as a control sequence (JSON is already
// escaped by its writer, and passes unchanged).
#pragma once

#include <string_view>

namespace gpuwatch::cli {

// Throws std::runtime_error when stdout cannot take it.
void print_output(std::string_view text);

}  // namespace gpuwatch::cli
