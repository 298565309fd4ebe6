// bench_plot: time and memory of drawing each kind of plot over a long run.
// The target: a run of 10 million device-samples (8 GPUs at 10 Hz for
// about 35 h) must plot in under 2 s on a 2-core machine with RSS under
// 500 MB. The run is synthetic and made in memory first (only the columns the
// plots read), so the numbers are the drawing's alone, not the store's.
//
//   bench_plot [--gpus 8] [--hours 35] [--hz 10] [--out DIR]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "render/plot/plot.h"
#include "../tests/unit/render/plot_test_util.h"

namespace {

// Peak resident memory since the last reset, in MiB (Linux: VmHWM, reset by
// writing 5 to clear_refs).
double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      status >> kib;
      return kib / 1024;
    }
  }
  return 0;
}
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

double current_rss_mib() {
  std::ifstream statm("/proc/self/statm");
  double pages = 0;
  double resident = 0;
  statm >> pages >> resident;
  return resident * 4096 / (1024 * 1024);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t gpus = 8;
  double hours = 35;
  double hz = 10;
  std::string out = ".";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--gpus") gpus = std::stoul(argv[i + 1]);
    if (flag == "--hours") hours = std::stod(argv[i + 1]);
    if (flag == "--hz") hz = std::stod(argv[i + 1]);
    if (flag == "--out") out = argv[i + 1];
  }
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
  std::printf("| kind | runs | wall s | CPU s | peak RSS above the data, MiB |\n|---|---|---|---|---|\n");
  for (const std::string& name : plot::plot_kind_names()) {
    plot::PlotOptions options;
    options.kind = *plot::plot_kind_by_name(name);
    const std::size_t count = options.kind == plot::PlotKind::Compare ? 2 : 1;
    const double base = current_rss_mib();
    reset_peak_rss();
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    const auto t0 = std::chrono::steady_clock::now();
    plot::write_plot(std::span(runs).first(count), options, out + "/bench_" + name + ".png");
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    const auto cpu = [](const rusage& r) {
      return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
             static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
    };
    std::printf("| %s | %zu | %.2f | %.2f | %.0f |\n", name.c_str(), count, wall, cpu(after) - cpu(before),
                peak_rss_mib() - base);
  }
  return 0;
}
