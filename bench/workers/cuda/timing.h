// The timed loop every test shares: warm-up, a pilot that sizes the run, then
// enough iterations to last the target time, timed with CUDA events.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>

#include "result.h"

namespace gpuwatch::bench_cuda {

struct TimingPlan {
  int warmup_iterations = 3;
  double target_seconds = 1.0;
  // Called after warm-up and pilot, just before the timed part: writes the
  // "start" line, and for the all-GPU test waits for the other GPUs.
  std::function<void()> before_timed;
};

struct Timing {
  std::int64_t iterations = 0;
  double seconds = 0.0;
};

// `step` enqueues one iteration on `stream` (and may wait for it, as the
// launch round trip does). The events bracket the whole timed loop on the
// stream, and the stop event is waited for before its time is read.
Timing time_iterations(cudaStream_t stream, const std::function<void()>& step, const TimingPlan& plan);

// time_iterations as a Measurement, with the device memory the test holds;
// the caller adds the work one iteration does.
Measurement measure(cudaStream_t stream, const std::function<void()>& step, const TimingPlan& plan,
                    double peak_gpu_memory_mb);

}  // namespace gpuwatch::bench_cuda
