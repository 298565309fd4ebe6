// One test's outcome as the worker protocol reports it, and the arithmetic
// from raw timings to rates. Pure C++.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "catalogue.h"

namespace gpuwatch::bench_cuda {

// What a test measured: its timed loop and the work one iteration does.
struct Measurement {
  std::int64_t iterations = 0;
  double duration_seconds = 0.0;  // the timed part only, device synchronized
  double flops_per_iteration = 0.0;
  double bytes_per_iteration = 0.0;  // counted as the test's description says
  std::optional<double> peak_gpu_memory_mb;
};

struct BenchResult {
  std::string test_name;
  Family family = Family::matmul;
  std::string description;
  std::string model_name;
  std::optional<int> gpu;
  std::optional<std::string> precision;

  std::optional<double> duration_seconds;
  std::optional<std::int64_t> iterations;
  std::optional<double> avg_iteration_time_ms;
  std::optional<double> tflops;
  std::optional<double> gb_per_s;
  std::optional<double> latency_us;
  std::optional<double> peak_gpu_memory_mb;

  bool success = false;
  std::optional<std::string> error_message;
};

// Marks the result successful and fills its rates: TFLOP/s from flops, GB/s
// (1e9 bytes) from bytes, and for launch tests the latency per iteration.
void record_measurement(BenchResult& result, const Measurement& measurement);

void record_failure(BenchResult& result, std::string error_message);

// One line for people on stderr: "matmul_bf16_8192 on GPU 0: 712.4 TFLOP/s".
std::string result_summary(const BenchResult& result);

// How many iterations fill `target_seconds`, from a pilot run that took
// `pilot_seconds` for `pilot_iterations`; at least 1, at most `max_iterations`.
std::int64_t iterations_for(double target_seconds, double pilot_seconds,
                            std::int64_t pilot_iterations, std::int64_t max_iterations);

// "13.0" from the runtime's 13000.
std::string cuda_version_string(int version);

}  // namespace gpuwatch::bench_cuda
