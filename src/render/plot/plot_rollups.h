// A long run reduced for its pictures from its per-minute rollups
// (core/rollup.h) instead of its samples. Two weeks of 8 GPUs at 10 Hz are
// 100 million device-samples but 20,000 minutes: a picture 1,600 pixels wide
// shows a dozen minutes per pixel column, so the samples add nothing it can
// show, and reading them costs seconds and gigabytes.
//
// From the minutes, what the samples would give (plot_data.h):
//   - lines: each minute's min and max at its middle, so that a pixel
//     column's envelope is the min and max of its minutes, which are those of
//     its samples (every spike stays); a minute straddling two columns lands
//     in one of them (under a pixel of shift);
//   - moments (means, spreads, extremes) and value ranges: those of the
//     samples (the rollups hold summarize()'s weights), to rounding;
//   - histograms: the rollups' time-weighted histograms (exact values, or
//     buckets within 0.25 % of their values);
//   - compare's mean over the GPUs: each minute, the mean of the GPUs' minute
//     means, one point per minute. Unlike the samples' line it does not show
//     how that mean moved within a minute.
#pragma once

#include <cstdint>
#include <optional>

#include "core/rollup.h"
#include "render/plot/plot_data.h"

namespace gpuwatch::plot {

// Whole minutes the run spans by the wall clock, from its start to its end
// (or, for a run without one, the recorder's last commit); 0 when unknown.
std::int64_t run_minutes(const RunInfo& run);

// Whether a run is drawn from its rollups in a picture `pixel_columns` wide:
// when it spans more minutes than that, the minutes already hold more than
// the picture can show.
bool draw_from_rollups(const RunInfo& run, std::size_t pixel_columns);

// What reduce_run() keeps, from `rollups`, and without its base (the caller
// moves it in). nullopt when a GPU of base.devices has none: the run is then
// read from its samples. GPUs are read one at a time.
std::optional<PlotRun> reduce_run_from_rollups(const RunData& base, const RollupSource& rollups,
                                               const PlotNeeds& needs);

}  // namespace gpuwatch::plot
