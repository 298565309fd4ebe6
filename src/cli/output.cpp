#include "cli/output.h"

#include <cstdio>
#include <stdexcept>

#include "render/terminal_text.h"

namespace gpuwatch::cli {

void print_output(std::string_view text) {
  if (!write_terminal_text(stdout, text)) throw std::runtime_error("cannot write to stdout");
}

}  // namespace gpuwatch::cli
