// The recording run on the top screen: the training's own progress and the
// advisor's diagnosis, next to the GPUs that run on.
#pragma once

#include <cstddef>
#include <vector>

#include "render/top/screen.h"
#include "render/top/top_view.h"

namespace gpuwatch {

// Lines the run section takes for `view` (0 without a run or an error).
std::size_t run_panel_height(const TopView& view);

// Those lines: the run (name, id, state, age, verdict, command), its
// progress (epoch, step, steps/s, loss), then its advisories, the most
// severe first, as many as kMaxRunAdvisoryLines.
std::vector<ScreenLine> run_panel(const TopView& view, std::size_t width);

inline constexpr std::size_t kMaxRunAdvisoryLines = 2;

}  // namespace gpuwatch
