// The whole top screen for a terminal of `width` x `height`: a header, an
// aggregate line for several GPUs, a panel per GPU (or one line each when
// they do not fit, or one GPU large when focused), the host's CPU cores and
// memory, the process table, and a line of keys or a message.
#pragma once

#include <cstddef>

#include "render/top/screen.h"
#include "render/top/top_view.h"

namespace gpuwatch {

// Exactly `height` lines, none wider than `width`.
Screen compose_top_screen(const TopView& view, std::size_t width, std::size_t height);

// `top --once`: the same content in at most `max_height` lines (and no more
// than snapshot_height()), without the live screen's blank padding and its
// line of keys (nothing reads keys).
Screen compose_top_snapshot(const TopView& view, std::size_t width, std::size_t max_height);

// The least height at which a snapshot shows every panel (graphs of one
// row) and every process: `top --once` without --height.
std::size_t snapshot_height(const TopView& view);

// How many process rows the screen above shows: the kill key's and the
// selection's page size.
std::size_t process_rows(const TopView& view, std::size_t width, std::size_t height);

}  // namespace gpuwatch
