// bench_segments: time and memory of the report of a run with many epochs
// and marks (issue 9, item 7: 40 k epochs took 13 s and 269 MB, 200 k took
// 326 s and 1.4 GB, because every epoch was looked up among all the others).
// The run is made in memory: the analysis (build_report) and the text and
// JSON renderers, not the store.
//
//   bench_segments [--epochs 1000,40000,200000] [--marks 0] [--seconds 4]
//                  [--hz 10] [--gpus 1] [--repeat 1]
//
// Epochs are spread evenly over the run, each announced `--repeat` times
// (a pattern matching every line of an epoch). One table row per count.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/run_report.h"
#include "render/report.h"
#include "../tests/unit/render/plot_test_util.h"
#include "rss.h"

namespace {

using gpuwatch::bench::current_rss_mib;
using gpuwatch::bench::peak_rss_mib;
using gpuwatch::bench::reset_peak_rss;

std::vector<std::size_t> counts(const std::string& list) {
  std::vector<std::size_t> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::stoul(item));
  return out;
}

gpuwatch::Event event_at(const gpuwatch::RunData& data, std::int64_t offset_ns, std::string kind,
                         std::string message) {
  gpuwatch::Event e;
  e.time.mono_ns = data.run.start_mono_ns + offset_ns;
  e.time.wall_ns = data.run.start_wall_ns + offset_ns;
  e.kind = std::move(kind);
  e.message = std::move(message);
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpuwatch;
  std::string epoch_list = "1000,40000,200000";
  std::size_t marks = 0;
  std::size_t repeat = 1;
  synthetic::SyntheticRun spec;
  spec.gpus = 1;
  spec.duration_s = 4;
  spec.hz = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--epochs") epoch_list = value;
    if (flag == "--marks") marks = std::stoul(value);
    if (flag == "--seconds") spec.duration_s = std::stod(value);
    if (flag == "--hz") spec.hz = std::stod(value);
    if (flag == "--gpus") spec.gpus = std::stoul(value);
    if (flag == "--repeat") repeat = std::max<std::size_t>(1, std::stoul(value));
  }
  std::printf("run: %zu GPU(s), %.0f s at %.0f Hz, %zu marks, each epoch announced %zu time(s)\n", spec.gpus,
              spec.duration_s, spec.hz, marks, repeat);
  std::printf("| epochs | report s | text lines | text KiB | JSON KiB | peak RSS above the data, MiB |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const std::size_t epochs : counts(epoch_list)) {
    RunData data = synthetic::make_run(spec);
    const auto span_ns = static_cast<std::int64_t>(spec.duration_s * 1e9);
    const std::size_t announcements = epochs * repeat;
    for (std::size_t k = 0; k < announcements; ++k) {
      const auto at = static_cast<std::int64_t>(static_cast<double>(span_ns) * static_cast<double>(k) /
                                                static_cast<double>(announcements));
      data.events.push_back(event_at(data, at, "epoch", std::to_string(k / repeat)));
    }
    for (std::size_t k = 0; k < marks; ++k) {
      const auto at = static_cast<std::int64_t>(static_cast<double>(span_ns) * static_cast<double>(k) /
                                                static_cast<double>(marks));
      data.events.push_back(event_at(data, at, "mark", "Saving checkpoint " + std::to_string(k)));
    }
    std::stable_sort(data.events.begin(), data.events.end(),
                     [](const Event& a, const Event& b) { return a.time.mono_ns < b.time.mono_ns; });
    const double base = current_rss_mib();
    reset_peak_rss();
    const auto t0 = std::chrono::steady_clock::now();
    const RunReport report = build_report(data);
    const std::string text = render_report_text(report);
    const std::string json = render_report_json(report);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("| %zu | %.3f | %zu | %.0f | %.0f | %.0f |\n", epochs, wall,
                static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')),
                static_cast<double>(text.size()) / 1024, static_cast<double>(json.size()) / 1024,
                peak_rss_mib() - base);
    std::fflush(stdout);
  }
  return 0;
}
