#include "matrix/graphs.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <vector>

#include <fmt/format.h>

#include "core/device_columns.h"
#include "render/seed_files.h"
#include "runs/stored_plot.h"
#include "render/plot/cairo_library.h"
#include "render/plot/matrix_figures.h"
#include "store/store.h"

namespace gpuwatch::matrix {

namespace {

namespace fs = std::filesystem;

constexpr const char* kGraphsDir = "graphs";
constexpr const char* kTimelineFile = "gpu_memory_timeline.png";

void warn_picture(const fs::path& out, const std::exception& e) {
  fmt::print(stderr, "gpuwatch: warning: matrix: {} not drawn: {}\n", out.string(), e.what());
}

plot::PlotOptions memory_compare() {
  plot::PlotOptions o;
  o.kind = plot::PlotKind::Compare;
  o.metric = DeviceMetric::MemUsedBytes;
  return o;
}

// A configuration's numbers for the figures: the summary's own memory
// spreads (so that the pictures and summary.json agree), and each GPU
// position's time-weighted mean averaged over the repeats.
plot::MatrixConfig config_numbers(const ConfigSummary& k, const std::map<std::string, GraphRun>& runs) {
  plot::MatrixConfig c;
  c.name = k.config;
  c.mem_used_mean = k.columns[static_cast<std::size_t>(GroupColumn::MemUsedMean)];
  c.mem_used_peak = k.columns[static_cast<std::size_t>(GroupColumn::MemUsedPeak)];
  std::vector<std::vector<double>> per_gpu;
  for (const CellResult* cell : k.cells) {
    const auto it = runs.find(cell->run_id);
    if (cell->state != CellState::Done || it == runs.end()) continue;
    const std::vector<plot::DeviceData>& devices = it->second.reduced.devices;
    if (per_gpu.size() < devices.size()) per_gpu.resize(devices.size());
    for (std::size_t g = 0; g < devices.size(); ++g) {
      if (const auto& m = devices[g].metric(DeviceMetric::MemUsedBytes).moments) per_gpu[g].push_back(m->mean);
    }
  }
  for (const std::vector<double>& xs : per_gpu) {
    c.gpu_mem_mean.push_back(xs.empty() ? std::nullopt : std::optional(spread_of(xs)));
  }
  return c;
}

// Memory used over time: each run's mean over its GPUs, on time since its
// own start (the compare kind); one run alone is drawn GPU by GPU.
void write_timeline(const fs::path& out, const std::vector<const GraphRun*>& ordered, const std::string& matrix) {
  if (ordered.size() == 1) {
    plot::PlotOptions o;
    o.kind = plot::PlotKind::PerGpu;
    o.metric = DeviceMetric::MemUsedBytes;
    const RunInfo& run = ordered.front()->reduced.base.run;
    o.title = fmt::format("GPU memory used over time \u2014 {} ({}, its only successful cell)", run.name, matrix);
    plot::write_stored_run_plot(ordered.front()->store, run, o, out);
    return;
  }
  std::vector<plot::PlotRun> runs;
  for (const GraphRun* r : ordered) runs.push_back(r->reduced);
  plot::PlotOptions o = memory_compare();
  o.title = fmt::format("GPU memory used over time \u2014 {} cells of {}", runs.size(), matrix);
  // Taller for the legend's rows: about three runs to a row.
  const int extra_rows = static_cast<int>(runs.size() / 3);
  o.height_px = std::min(plot::kMaxSidePx, plot::default_size(o.kind).height_px + 24 * extra_rows);
  plot::write_plot(runs, o, out);
}

}  // namespace

bool pictures_available() {
  static const bool available = [] {
    try {
      plot::cairo_api();
      return true;
    } catch (const std::exception& e) {
      fmt::print(stderr, "gpuwatch: warning: matrix: no pictures (the cells' _plot.png, graphs/): {}\n", e.what());
      return false;
    }
  }();
  return available;
}

void write_cell_plot(const fs::path& cell_dir, const fs::path& store, const std::string& run_id) {
  fs::path out = cell_dir / "_plot.png";
  try {
    RunInfo run;
    {
      const auto s = Store::open(store, true);
      run = s->resolve(run_id);
    }
    out = cell_dir / (seed_file_stem(run.name, run.start_wall_ns) + "_plot.png");
    plot::write_stored_run_plot(store, run, plot::PlotOptions{}, out);
  } catch (const std::exception& e) {
    warn_picture(out, e);
  }
}

GraphRun graph_run(const fs::path& store, const RunData& data) {
  return {store, plot::read_for_plot(run_base(data), RunDataColumns(data), memory_compare())};
}

void write_graphs(const fs::path& dir, const MatrixSummary& summary, const std::map<std::string, GraphRun>& runs) {
  if (!pictures_available()) return;
  const fs::path graphs = dir / kGraphsDir;
  std::vector<const GraphRun*> ordered;  // grid order
  std::vector<plot::MatrixConfig> configs;
  for (const ConfigSummary& k : summary.configs) {
    std::size_t found = 0;
    for (const CellResult* cell : k.cells) {
      const auto it = runs.find(cell->run_id);
      if (cell->state != CellState::Done || it == runs.end() || !it->second.reduced.has_samples()) continue;
      ordered.push_back(&it->second);
      ++found;
    }
    if (found > 0) configs.push_back(config_numbers(k, runs));
  }
  if (ordered.empty()) {
    fmt::print(stderr, "gpuwatch: matrix: no cell succeeded with GPU samples: no pictures in {}\n", graphs.string());
    return;
  }
  try {
    fs::create_directories(graphs);
  } catch (const std::exception& e) {
    warn_picture(graphs, e);
    return;
  }
  fs::path named = fs::absolute(dir).lexically_normal();
  if (named.filename().empty()) named = named.parent_path();  // "DIR/"
  const std::string matrix = named.filename().string();
  const std::string subtitle =
      fmt::format("matrix {} \u00b7 {} successful cell{}", matrix, ordered.size(), ordered.size() == 1 ? "" : "s");
  try {
    write_timeline(graphs / kTimelineFile, ordered, matrix);
  } catch (const std::exception& e) {
    warn_picture(graphs / kTimelineFile, e);
  }
  for (const plot::MatrixFigure f : plot::kMatrixFigures) {
    const fs::path out = graphs / plot::matrix_figure_file(f);
    try {
      plot::write_matrix_figure(f, configs, subtitle, out);
    } catch (const std::exception& e) {
      warn_picture(out, e);
    }
  }
}

}  // namespace gpuwatch::matrix
