// bench's table heads the resources a test used with the catalogue's words
// (core/metrics.h): each metric's tag and display unit, the statistic in the
// note under it, as tests/unit/render/catalogue_labels_test.cpp checks the
// other renderers.
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "bench/bench_render.h"
#include "render/units.h"

namespace gpuwatch {
namespace {

std::string line_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) return line;
  }
  return {};
}

void expect_in(const std::string& line, const std::string& words) {
  EXPECT_NE(line.find(words), std::string::npos) << "'" << words << "' not in: " << line;
}

TEST(BenchTable, HeadsResourcesByTagAndUnit) {
  BenchRun run;
  BenchTest test;
  test.result.test_name = "matmul_fp16";
  test.result.success = true;
  test.resources.gpu_memory_mb = StatBlock{0, 2048, 1024, 10};
  run.tests.push_back(test);
  const std::string text = render_bench_table(run);
  const std::string header = line_with(text, "result");
  for (const DeviceMetric m : {DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes, DeviceMetric::PowerWatts,
                               DeviceMetric::TempGpuCelsius}) {
    expect_in(header, tag_title(info(m)));
  }
  expect_in(text, tag_title(info(DeviceMetric::PowerWatts)) + ": the mean during the test");
  expect_in(line_with(text, "matmul_fp16"), " 2.00 ");  // 2048 MiB in GiB, as the catalogue shows memory
}

}  // namespace
}  // namespace gpuwatch
