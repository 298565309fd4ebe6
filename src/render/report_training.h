// The report's training section: progress, logged scalars, and PyTorch's
// allocator memory beside the driver's (from the run's annotations); and
// the events table, where marks land.
#pragma once

#include "analysis/run_report.h"
#include "render/document.h"
#include "base/json_writer.h"

namespace gpuwatch {

void add_training(Document& doc, const RunReport& r);
// The events table (epochs and phases have their own): the first and last
// kEventRowsShown / 2 rows, and what was left out counted by kind. The
// recorder's own events (is_internal_event) only when `full`.
inline constexpr std::size_t kEventRowsShown = 40;
void add_events(Document& doc, const RunReport& r, bool full);
// "training": an object, or null without annotations.
void write_training(JsonWriter& w, const RunReport& r);

}  // namespace gpuwatch
