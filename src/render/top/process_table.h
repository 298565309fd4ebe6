// The process table of the top screen: every process that holds memory on a
// watched GPU, with what procfs says of it.
#pragma once

#include <cstddef>
#include <vector>

#include "render/top/screen.h"
#include "render/top/top_view.h"

namespace gpuwatch {

// A header and at most `rows` rows, scrolled so that the selected row shows.
std::vector<ScreenLine> process_table(const TopView& view, std::size_t width, std::size_t rows);

}  // namespace gpuwatch
