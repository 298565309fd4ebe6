// The pictures of a `gpuwatch matrix` in DIR/graphs/ that compare its
// configurations: plain numbers in, a picture out (no run is read here; the
// matrix gathers the numbers from its stored runs).
//
//   memory comparison  per configuration, its mean memory used (summed over
//                      the cell's GPUs) and its peak, each the mean over its
//                      repeats with whiskers from the lowest to the highest
//   per-GPU memory     seed 001's grid, one panel per GPU of a cell (its
//                      first, second, ...), the configurations side by side
//   load balance       left, each configuration's memory on each of its GPUs;
//                      right, the coefficient of variation across them
//                      against the 5 / 10 / 20 % bands (as the balance kind)
//
// Configurations are numbered #1, #2, ... under the bars and named in the
// legend, so that long names (`optimizer=adamw,batch_size=128`) never crowd
// the axis.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/run_group.h"
#include "render/plot/plot.h"

namespace gpuwatch::plot {

// One configuration (the cells that differ only in rep): its numbers over
// the repeats that succeeded, in bytes.
struct MatrixConfig {
  std::string name;                     // "optimizer=adamw,batch_size=128"
  std::optional<Spread> mem_used_mean;  // summary.json's mem_used_bytes_mean
  std::optional<Spread> mem_used_peak;  // summary.json's mem_used_bytes_peak
  // By the GPU's position in the cell (0: its first GPU): that GPU's
  // time-weighted mean memory used, over the repeats.
  std::vector<std::optional<Spread>> gpu_mem_mean;
};

enum class MatrixFigure { MemoryComparison, PerGpuMemory, LoadBalance };
inline constexpr MatrixFigure kMatrixFigures[] = {MatrixFigure::MemoryComparison, MatrixFigure::PerGpuMemory,
                                                  MatrixFigure::LoadBalance};

// "training_memory_comparison.png", "per_gpu_memory_breakdown.png",
// "gpu_load_balance_analysis.png": the seeds' names.
std::string_view matrix_figure_file(MatrixFigure figure);
// Taller with more configurations, for the legend's rows.
PlotSize matrix_figure_size(MatrixFigure figure, std::size_t configs);

// Draws on `canvas`; `subtitle` (e.g. the matrix's folder) goes first in the
// subtitle. Throws PlotError when no configuration has a number to draw.
PlotGeometry render_matrix_figure(Canvas& canvas, MatrixFigure figure, std::span<const MatrixConfig> configs,
                                  std::string_view subtitle);
// Draws and writes `out` atomically, at matrix_figure_size.
void write_matrix_figure(MatrixFigure figure, std::span<const MatrixConfig> configs, std::string_view subtitle,
                         const std::filesystem::path& out);

}  // namespace gpuwatch::plot
