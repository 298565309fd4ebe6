#include "render/compare.h"

#include <sstream>

#include <gtest/gtest.h>

#include "core/bytes.h"
#include "../analysis/run_data_util.h"
#include "render/compare_format.h"
#include "render/table.h"

namespace gpuwatch {
namespace {

using namespace run_data_test;


// Memory alternates mib ± swing_mib, so its time-weighted mean is exactly mib.
RunData memory_run(const std::string& name, const std::string& id, double mib, double swing_mib, std::uint64_t seed) {
  RunData d = make_run(name, id);
  std::vector<double> mem;
  for (std::size_t i = 0; i < 600; ++i) mem.push_back((mib + (i % 2 == 0 ? swing_mib : -swing_mib)) * kMiB);
  set_device(d, 0, DeviceMetric::MemUsedBytes, mem, 0.5);
  set_device(d, 0, DeviceMetric::GpuUtilPercent, white_noise(600, 80, 5, seed + 100), 0.5);
  return d;
}

const MetricComparison& metric(const Comparison& c, RunMetric m) {
  return *std::find_if(c.metrics.begin(), c.metrics.end(), [m](const MetricComparison& x) { return x.metric == m; });
}

// Seed 000: "AdamWPrune uses 7.5 % less memory" than the others' ~1494 MiB.
Comparison seed_comparison() {
  static const std::vector<RunData> runs{memory_run("adamw", "aaaaaaaaaaaa", 1494, 20, 1),
                                         memory_run("adamwprune", "bbbbbbbbbbbb", 1381.5, 20, 2)};
  return compare_runs(runs, {});
}

// One entry point per document: the format chosen once picks the renderer.
TEST(CompareRender, TheFormatPicksTheRenderer) {
  const Comparison c = seed_comparison();
  EXPECT_EQ(render_compare(c, OutputFormat::json), render_compare_json(c));
  EXPECT_EQ(render_compare(c, OutputFormat::markdown), render_compare_markdown(c));
  EXPECT_EQ(render_compare(c, OutputFormat::text), render_compare_text(c));
}

// Row titles and sentences speak of a metric with the catalogue's label.
TEST(CompareRender, LabelsComeFromTheCatalogue) {
  EXPECT_EQ(info(RunMetric::GpuUtilPercent).label, info(DeviceMetric::GpuUtilPercent).label);
  EXPECT_EQ(info(RunMetric::SmClockMhz).name, info(DeviceMetric::SmClockMhz).name);
  EXPECT_EQ(info(RunMetric::TreeRssBytes).label, info(HostMetric::TreeRssBytes).short_label);
  EXPECT_EQ(compare_format::metric_title(RunMetric::GpuUtilPercent), "GPU utilization %");
  EXPECT_EQ(compare_format::words(RunMetric::GpuUtilPercent).noun, "GPU utilization");
  EXPECT_EQ(compare_format::human_value(RunMetric::SmClockMhz, 1410.4), "1410 MHz");
  EXPECT_EQ(compare_format::human_value(RunMetric::MemUsedPercent, 61.3), "61.3 %");
}

TEST(CompareSentence, SaysLessWithTheIntervalAndTheMethod) {
  const Comparison c = seed_comparison();
  const std::string s = compare_sentence(c, metric(c, RunMetric::MemUsedBytes), 1);
  // 1381.5 MiB vs 1494 MiB
  EXPECT_EQ(s.rfind("B (adamwprune) uses 7.5 % less GPU memory than A (adamw): 1.35 GiB vs 1.46 GiB, 95 % CI −7.", 0),
            0u)
      << s;
  EXPECT_NE(s.find("(circular block bootstrap, block"), std::string::npos) << s;
}

TEST(CompareSentence, SaysMoreWhenTheOrderIsSwapped) {
  static const std::vector<RunData> runs{memory_run("adamwprune", "bbbbbbbbbbbb", 1381.5, 20, 2),
                                         memory_run("adamw", "aaaaaaaaaaaa", 1494, 20, 1)};
  const Comparison c = compare_runs(runs, {});
  const std::string s = compare_sentence(c, metric(c, RunMetric::MemUsedBytes), 1);
  EXPECT_EQ(s.rfind("B (adamw) uses 8.1 % more GPU memory than A (adamwprune): 1.46 GiB vs 1.35 GiB", 0), 0u) << s;
  EXPECT_NE(s.find("CI +"), std::string::npos) << s;
}

TEST(CompareSentence, NoRealDifferenceIsSaidSo) {
  const Comparison c = seed_comparison();
  const std::string s = compare_sentence(c, metric(c, RunMetric::GpuUtilPercent), 1);
  EXPECT_EQ(s.rfind("No real difference in GPU utilization between B (adamwprune) and A (adamw)", 0), 0u) << s;
}

TEST(CompareSentence, RunsWithoutANameUseTheirId) {
  static const std::vector<RunData> runs{memory_run("", "aaaaaaaaaaaa", 1000, 1, 1),
                                         memory_run("", "bbbbbbbbbbbb", 2000, 1, 2)};
  const Comparison c = compare_runs(runs, {});
  const std::string s = compare_sentence(c, metric(c, RunMetric::MemUsedBytes), 1);
  EXPECT_EQ(s.rfind("B (bbbbbbbbbbbb) uses 100.0 % more GPU memory than A (aaaaaaaaaaaa)", 0), 0u) << s;
}

TEST(CompareText, StatesTheDirectionAndFits100ColumnsWithFourRuns) {
  std::vector<RunData> runs;
  for (int i = 0; i < 4; ++i) {
    RunData r = memory_run("a-rather-long-configuration-name-" + std::to_string(i), std::string(12, static_cast<char>('a' + i)),
                           1000 + 100 * i, 30, static_cast<std::uint64_t>(i));
    set_device(r, 0, DeviceMetric::PowerWatts, white_noise(600, 300, 10, 7), 0.5);
    set_device(r, 0, DeviceMetric::TempGpuCelsius, white_noise(600, 60, 1, 8), 0.5);
    r.host.mono_ns = {kStartMono, kStartMono + kSec, kStartMono + 2 * kSec};
    r.host.values[static_cast<std::size_t>(HostMetric::CpuPercent)] = {10, 20, 30};
    r.host.values[static_cast<std::size_t>(HostMetric::TreeRssBytes)] = {1e9, 2e9, 3e9};
    runs.push_back(std::move(r));
  }
  const std::string text = render_compare_text(compare_runs(runs, {}));
  EXPECT_EQ(text.rfind("Comparison of 4 runs: B, C and D relative to A (A is the baseline; delta = run − A", 0), 0u)
      << text;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) EXPECT_LE(display_width(line), 100u) << line;
  EXPECT_NE(text.find("\nD relative to A\n"), std::string::npos);
}

TEST(CompareMarkdown, HasTablesAndTheFindings) {
  const std::string md = render_compare_markdown(seed_comparison());
  EXPECT_EQ(md.rfind("## Comparison of 2 runs: B relative to A", 0), 0u) << md;
  EXPECT_NE(md.find("| metric | A | B | B−A | % | 95 % interval | real |"), std::string::npos) << md;
  EXPECT_NE(md.find("- B (adamwprune) uses 7.5 % less GPU memory"), std::string::npos) << md;
}

TEST(CompareJson, CarriesTheSchemaVersionAndTheVerdicts) {
  const std::string json = render_compare_json(seed_comparison());
  EXPECT_NE(json.find("\"schema_version\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"name\": \"circular block bootstrap\""), std::string::npos);
  EXPECT_NE(json.find("\"verdict\": \"real\""), std::string::npos);
  EXPECT_NE(json.find("\"verdict\": \"not significant\""), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch
