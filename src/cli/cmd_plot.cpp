#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/number_flags.h"
#include "cli/options.h"
#include "cli/run_source.h"
#include "render/plot/plot.h"
#include "runs/stored_plot.h"
#include "store/store.h"

namespace gpuwatch::cli {

namespace {

// RUN reduced for the picture; a stored run that is long from its rollups
// (plot.h read_for_plot), of only the metrics the picture draws.
plot::PlotRun read_run(const std::string& ref, const StoreList& stores, const plot::PlotOptions& options) {
  RunColumns source = open_run_columns(ref, stores);
  if (source.store_path.empty()) return plot::read_for_plot(std::move(source.base), *source.columns, options);
  const plot::StoredPlotRollups rollups(source.store_path, source.base.run, plot::plot_needs(options).columns());
  return plot::read_for_plot(std::move(source.base), *source.columns, options, &rollups);
}

}  // namespace

void add_plot(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "plot",
      "Draw runs as a PNG, SVG or PDF picture (by the file's extension). Kinds: timeline (utilization, memory,\n"
      "power, temperature, clocks over time), per-gpu (one panel per GPU), balance (per-GPU means and their CV),\n"
      "compare (two or more runs), histogram (time spent at each value)");
  struct Flags {
    std::vector<std::string> runs;
    std::string output;
    std::string kind;
    std::string metric;
    int width = 0;
    int height = 0;
    std::string title;
    std::string store;
    std::string align = "time";
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("RUN", flags->runs, "Run id, unique id prefix, run name, or 'last'; compare takes two or more")
      ->required();
  cmd->add_option("-o,--output", flags->output, "Picture to write: FILE.png, FILE.svg or FILE.pdf")->required();
  cmd->add_option("--kind", flags->kind, "timeline, per-gpu, balance, compare or histogram (default: timeline for "
                                         "one run, compare for several)")
      ->check(CLI::IsMember(plot::plot_kind_names()));
  cmd->add_option("--metric", flags->metric,
                  "per-gpu (default mem_used_bytes), histogram (default gpu_util_percent) and compare (default: "
                  "utilization, memory and power): the metric to draw, by its name in docs/metrics.md")
      ->check(CLI::IsMember(plot::plottable_metric_names()).description(""))
      ->type_name("NAME");
  cmd->add_option("--width", flags->width, "Width in pixels (default: by kind)")
      ->check(whole_check("pixels", plot::kMinSidePx, plot::kMaxSidePx, "1600"));
  cmd->add_option("--height", flags->height, "Height in pixels (default: by kind)")
      ->check(whole_check("pixels", plot::kMinSidePx, plot::kMaxSidePx, "900"));
  cmd->add_option("--align", flags->align,
                  "compare: the x axis, time since each run's start, or the runs' step or epoch annotations "
                  "(as compare --align)")
      ->check(CLI::IsMember({"time", "step", "epoch"}))
      ->type_name("time|step|epoch");
  cmd->add_option("--title", flags->title, "Title of the picture (default: made from the kind and the run)");
  add_store_option(*cmd, flags->store);
  cmd->callback([flags, &exit_code] {
    plot::PlotOptions options;
    if (!flags->kind.empty()) {
      options.kind = *plot::plot_kind_by_name(flags->kind);
    } else if (flags->runs.size() > 1) {
      options.kind = plot::PlotKind::Compare;
    }
    if (!flags->metric.empty()) options.metric = plot::plottable_metric_by_name(flags->metric);
    options.width_px = flags->width;
    options.height_px = flags->height;
    options.title = flags->title;
    options.align = *plot::plot_align_by_name(flags->align);
    // What no run can fix is a usage error, found before loading anything.
    try {
      plot::file_format(flags->output);
    } catch (const plot::PlotError& e) {
      throw CLI::ValidationError("--output", e.what());
    }
    try {
      plot::check_plot_request(flags->runs.size(), options);
    } catch (const plot::PlotError& e) {
      throw CLI::ValidationError("plot", e.what());
    }
    // One run at a time, one GPU at a time: only the reduced runs are kept.
    std::vector<plot::PlotRun> runs;
    runs.reserve(flags->runs.size());
    for (const std::string& ref : flags->runs) runs.push_back(read_run(ref, flags->store, options));
    plot::write_plot(runs, options, flags->output);
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
