#include "render/prometheus/prometheus_processes.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuwatch {
namespace {

GpuProcess process(int gpu, std::uint32_t pid, std::optional<std::uint64_t> bytes, std::string name,
                   std::optional<double> percent = std::nullopt) {
  GpuProcess p;
  p.device_index = gpu;
  p.pid = pid;
  p.used_memory_bytes = bytes;
  p.name = std::move(name);
  p.gpu_percent = percent;
  return p;
}

bool has_line(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

TEST(PrometheusProcesses, MemoryAndUsePerProcessCountsPerGpu) {
  std::string out;
  append_process_families(out,
                          {process(0, 41, 2147483648ULL, "python3", 37.5), process(0, 42, std::nullopt, "x\"y"),
                           process(3, 7, 1024, "other gpu")},
                          {0, 1}, "node-1");
  EXPECT_TRUE(has_line(out, R"(gpuwatch_gpu_processes{gpu="0",hostname="node-1"} 2)")) << out;
  EXPECT_TRUE(has_line(out, R"(gpuwatch_gpu_processes{gpu="1",hostname="node-1"} 0)")) << out;
  EXPECT_TRUE(has_line(
      out, R"(gpuwatch_process_memory_used_bytes{gpu="0",pid="41",command="python3",hostname="node-1"} 2147483648)"))
      << out;
  EXPECT_TRUE(has_line(
      out, R"(gpuwatch_process_gpu_utilization_ratio{gpu="0",pid="41",command="python3",hostname="node-1"} 0.375)"));
  // No memory reading: no memory sample, not a 0.
  EXPECT_EQ(out.find(R"(pid="42",command="x\"y",hostname="node-1"} 0)"), std::string::npos) << out;
  EXPECT_EQ(out.find(R"(gpu="3")"), std::string::npos) << "a GPU not exported";
}

TEST(PrometheusProcesses, AtMost32SeriesPerGpuTheLargestFirst) {
  std::vector<GpuProcess> many;
  for (std::uint32_t pid = 1; pid <= 40; ++pid) many.push_back(process(0, pid, pid * 1000ULL, "w"));
  std::string out;
  append_process_families(out, many, {0}, "h");
  EXPECT_TRUE(has_line(out, R"(gpuwatch_gpu_processes{gpu="0",hostname="h"} 40)"));
  std::size_t series = 0;
  for (std::size_t at = out.find("\ngpuwatch_process_memory_used_bytes{"); at != std::string::npos;
       at = out.find("\ngpuwatch_process_memory_used_bytes{", at + 1)) {
    ++series;
  }
  EXPECT_EQ(series, kMaxProcessSeriesPerGpu);
  EXPECT_NE(out.find(R"(pid="40")"), std::string::npos);
  EXPECT_EQ(out.find(R"(pid="8",)"), std::string::npos) << "the smallest are left out";
}

TEST(PrometheusProcesses, CommandLabelsAreBoundedAndPrintable) {
  EXPECT_EQ(command_label("a\tb\x1b"), "a?b?");
  const std::string long_ascii(100, 'c');
  EXPECT_EQ(command_label(long_ascii).size(), kMaxCommandLabelBytes);
  // 63 ASCII bytes then a 3-byte character: cut before it, not inside.
  const std::string cut = command_label(std::string(63, 'a') + "\xe2\x82\xac" + "tail");
  EXPECT_EQ(cut, std::string(63, 'a'));
}

}  // namespace
}  // namespace gpuwatch
