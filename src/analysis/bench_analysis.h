// `gpuwatch bench`: what the sampler saw during each load test, how the
// GPUs compare with one another on the same test, and how close a result
// comes to what the hardware can do. Pure functions over samples.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats.h"
#include "core/run.h"

namespace gpuwatch {

struct TestWindow {
  std::int64_t start_mono_ns = 0;
  std::int64_t end_mono_ns = 0;
  std::optional<int> gpu;  // none: every GPU (a test over all of them, or the CPU)
};

// min, max and time-weighted mean of one quantity during a test.
struct StatBlock {
  double min = 0;
  double max = 0;
  double avg = 0;
  std::size_t samples = 0;
};

struct TestResources {
  std::optional<StatBlock> gpu_util_percent;
  std::optional<StatBlock> gpu_memory_mb;     // MiB, as seed 003's peak_gpu_memory_mb
  std::optional<StatBlock> gpu_power_watts;
  std::optional<StatBlock> gpu_temperature_celsius;
  std::optional<StatBlock> cpu_percent;
  std::optional<StatBlock> system_memory_mb;
  std::optional<double> throttled_percent;    // of the test's time with the clock-event mask known
  std::vector<std::string> throttle_reasons;  // those seen, e.g. "sw_power_cap"
};

// The samples inside the window, of the test's GPU (or of every GPU taken
// together: extremes over all, means pooled).
TestResources test_resources(const RunData& samples, const TestWindow& window);

// The same test on several GPUs (one value each, e.g. TFLOP/s): their CV and
// the GPU that lags, if one does.
struct GpuSpread {
  std::vector<int> gpus;
  std::vector<double> values;
  double cv_percent = 0;
  BalanceBand band = BalanceBand::Excellent;
  std::optional<int> straggler_gpu;  // below the mean, furthest from it, when the spread is not excellent
};
std::optional<GpuSpread> gpu_spread(std::span<const int> gpus, std::span<const double> values);

// What the hardware can do, for "% of peak".
struct PeakValue {
  double value = 0;
  std::string unit;    // "TFLOP/s", "GB/s"
  std::string source;  // "datasheet (NVIDIA H100 SXM5)", "PCIe gen 5 x16"
};
// Dense matrix-multiply peaks and memory bandwidth from NVIDIA's datasheets,
// by the GPU's name; precision "fp32", "tf32", "fp16", "bf16", "fp8".
std::optional<PeakValue> datasheet_matmul_peak(std::string_view gpu_name, std::string_view precision);
std::optional<PeakValue> datasheet_memory_bandwidth(std::string_view gpu_name);
// One direction of a PCIe link: lane rate x width x line-code efficiency.
std::optional<PeakValue> pcie_link_peak(int gen, int width);

}  // namespace gpuwatch
