#include "result.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuwatch::bench_cuda {

void record_measurement(BenchResult& result, const Measurement& measurement) {
  const double seconds = measurement.duration_seconds;
  const auto iterations = static_cast<double>(measurement.iterations);
  result.success = true;
  result.error_message.reset();
  result.duration_seconds = seconds;
  result.iterations = measurement.iterations;
  result.peak_gpu_memory_mb = measurement.peak_gpu_memory_mb;
  if (seconds <= 0.0 || measurement.iterations <= 0) return;
  const double seconds_per_iteration = seconds / iterations;
  result.avg_iteration_time_ms = seconds_per_iteration * 1e3;
  if (measurement.flops_per_iteration > 0.0) {
    result.tflops = measurement.flops_per_iteration * iterations / seconds / 1e12;
  }
  if (measurement.bytes_per_iteration > 0.0) {
    result.gb_per_s = measurement.bytes_per_iteration * iterations / seconds / 1e9;
  }
  if (result.family == Family::launch) result.latency_us = seconds_per_iteration * 1e6;
}

void record_failure(BenchResult& result, std::string error_message) {
  result.success = false;
  result.error_message = std::move(error_message);
}

std::string result_summary(const BenchResult& result) {
  const std::string where = result.test_name + (result.gpu ? " on GPU " + std::to_string(*result.gpu) : "");
  if (!result.success) return fmt::format("{} failed: {}", where, result.error_message.value_or(""));
  if (result.tflops) return fmt::format("{}: {:.1f} TFLOP/s", where, *result.tflops);
  if (result.gb_per_s) return fmt::format("{}: {:.1f} GB/s", where, *result.gb_per_s);
  if (result.latency_us) return fmt::format("{}: {:.2f} us per launch", where, *result.latency_us);
  return where + ": done";
}

std::int64_t iterations_for(double target_seconds, double pilot_seconds,
                            std::int64_t pilot_iterations, std::int64_t max_iterations) {
  if (pilot_seconds <= 0.0 || pilot_iterations <= 0) return max_iterations;
  const double needed =
      std::ceil(target_seconds / pilot_seconds * static_cast<double>(pilot_iterations));
  if (!(needed < static_cast<double>(max_iterations))) return max_iterations;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(needed));
}

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace gpuwatch::bench_cuda
