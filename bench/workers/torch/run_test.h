// One test of the suite: build the model on the device, warm up, then time
// num_epochs x num_batches iterations between two device synchronizations.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "options.h"
#include "suite.h"

namespace gpuwatch::bench_torch {

struct TestMeasurement {
  double duration_seconds = 0;  // the timed iterations only
  std::int64_t iterations = 0;
  std::optional<double> peak_gpu_memory_mib;  // null on cpu
};

// `on_timed_start` is called after the warm-up, just before the clock is read.
// Throws on any failure (out of memory, an unsupported type, a CUDA error).
TestMeasurement run_test(const TestSpec& spec, const RunConfig& config, const std::function<void()>& on_timed_start);

}  // namespace gpuwatch::bench_torch
