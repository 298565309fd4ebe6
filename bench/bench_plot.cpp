// bench_plot: time and memory of drawing each kind of plot over a long run.
// The target: a run of 10 million device-samples (8 GPUs at 10 Hz for
// about 35 h) must plot in under 2 s on a 2-core machine with RSS under
// 500 MB.
//
//   bench_plot [--gpus 8] [--hours 35] [--hz 10] [--out DIR]
//       a synthetic run made in memory first (only the columns the plots
//       read): the reduction from memory and the drawing, not the store
//   bench_plot --store FILE [--out DIR] [--samples]
//       the store's latest run (compare: its latest two) as `gpuwatch plot`
//       reads it (make one with make_run_store): from its per-minute rollups
//       when it is longer in minutes than the picture is wide, else GPU by
//       GPU from its samples; --samples always from the samples (the cost
//       before issue 25)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "render/plot/plot.h"
#include "runs/stored_plot.h"
#include "store/stored_columns.h"
#include "../tests/unit/render/plot_test_util.h"
#include "rss.h"

namespace {

using gpuwatch::bench::current_rss_mib;
using gpuwatch::bench::peak_rss_mib;
using gpuwatch::bench::reset_peak_rss;

double cpu_s() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

// Times `draw` (one picture) and prints a row of the table; `from_rollups`
// is read once it drew.
template <typename Draw>
void measure(const std::string& kind, std::size_t runs, Draw draw, const bool& from_rollups) {
  const double base = current_rss_mib();
  reset_peak_rss();
  const double cpu0 = cpu_s();
  const auto t0 = std::chrono::steady_clock::now();
  draw();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("| %s | %zu | %.2f | %.2f | %.0f | %s |\n", kind.c_str(), runs, wall, cpu_s() - cpu0,
              peak_rss_mib() - base, from_rollups ? "rollups" : "samples");
}

gpuwatch::plot::PlotOptions options_for(const std::string& kind) {
  gpuwatch::plot::PlotOptions options;
  options.kind = *gpuwatch::plot::plot_kind_by_name(kind);
  return options;
}

void bench_store(const std::string& path, const std::string& out, bool samples_only) {
  using namespace gpuwatch;
  std::vector<RunInfo> runs = Store::open(path, true)->list_runs();
  if (runs.size() > 2) runs.erase(runs.begin(), runs.end() - 2);
  std::reverse(runs.begin(), runs.end());  // the latest first
  std::printf("store %s: latest run %s\n", path.c_str(), runs.empty() ? "(none)" : runs.front().id.c_str());
  std::printf("| kind | runs | wall s | CPU s | peak RSS above the start, MiB | read from |\n"
              "|---|---|---|---|---|---|\n");
  for (const std::string& name : plot::plot_kind_names()) {
    const plot::PlotOptions options = options_for(name);
    const std::size_t count = options.kind == plot::PlotKind::Compare ? 2 : 1;
    if (runs.size() < count) continue;
    bool from_rollups = false;
    measure(name, count, [&] {
      std::vector<plot::PlotRun> read;
      for (std::size_t r = 0; r < count; ++r) {
        RunData base = plot::load_plot_base(*Store::open(path, true), runs[r]);
        const plot::StoredPlotRollups rollups(path, runs[r], plot::plot_needs(options).columns());
        read.push_back(plot::read_for_plot(std::move(base), StoredColumns(path, runs[r]), options,
                                           samples_only ? nullptr : &rollups));
        from_rollups = read.back().from_rollups;
      }
      plot::write_plot(read, options, out + "/bench_" + name + ".png");
    }, from_rollups);
  }
}

void bench_memory(std::size_t gpus, double hours, double hz, const std::string& out) {
  using namespace gpuwatch;
  synthetic::SyntheticRun spec;
  spec.gpus = gpus;
  spec.duration_s = hours * 3600;
  spec.hz = hz;
  spec.only_plotted = true;
  spec.util = [](std::size_t g, double t) {
    const double phase = std::fmod(t, 3600);
    return phase < 120 ? 5.0 : 85 + 10 * std::sin(t / 60 + static_cast<double>(g));
  };
  const std::vector<RunData> runs{synthetic::make_run(spec, "aaaaaaaaaaaa", "a"),
                                  synthetic::make_run(spec, "bbbbbbbbbbbb", "b")};
  std::size_t samples = 0;
  for (const auto& d : runs[0].devices) samples += d.wall_ns.size();
  std::printf("run: %zu GPUs x %.1f h at %.0f Hz = %zu device-samples; %.0f MiB resident with two such runs\n",
              gpus, hours, hz, samples, current_rss_mib());
  std::printf("| kind | runs | wall s | CPU s | peak RSS above the data, MiB | read from |\n"
              "|---|---|---|---|---|---|\n");
  const bool from_samples = false;
  for (const std::string& name : plot::plot_kind_names()) {
    const plot::PlotOptions options = options_for(name);
    const std::size_t count = options.kind == plot::PlotKind::Compare ? 2 : 1;
    measure(
        name, count, [&] { plot::write_plot(std::span(runs).first(count), options, out + "/bench_" + name + ".png"); },
        from_samples);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t gpus = 8;
  double hours = 35;
  double hz = 10;
  std::string out = ".";
  std::string store;
  bool samples_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--samples") {
      samples_only = true;
      continue;
    }
    if (i + 1 >= argc) break;
    const std::string value = argv[++i];
    if (flag == "--gpus") gpus = std::stoul(value);
    if (flag == "--hours") hours = std::stod(value);
    if (flag == "--hz") hz = std::stod(value);
    if (flag == "--out") out = value;
    if (flag == "--store") store = value;
  }
  if (store.empty()) {
    bench_memory(gpus, hours, hz, out);
  } else {
    bench_store(store, out, samples_only);
  }
  return 0;
}
