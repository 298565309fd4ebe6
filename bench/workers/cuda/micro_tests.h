// The measuring functions, one file per family. Each runs on the GPU it is
// given, throws BenchError when CUDA or cuBLASLt fails, and returns what the
// timed part measured.
#pragma once

#include <string_view>

#include "catalogue.h"
#include "result.h"
#include "timing.h"

namespace gpuwatch::bench_cuda {

// matmul.cu: square `size` matrices, `precision` "fp32", "tf32", "fp16",
// "bf16" or "fp8" (the caller checks that the GPU has fp8).
Measurement run_matmul(int gpu, std::string_view precision, int size, const TimingPlan& plan);

// membw.cu: membw_read, membw_write, membw_copy, membw_memcpy.
Measurement run_memory_bandwidth(int gpu, TestId id, const TimingPlan& plan);

// host_device.cpp: h2d_pinned, h2d_pageable, d2h_pinned, d2h_pageable.
Measurement run_host_device(int gpu, TestId id, const TimingPlan& plan);

// launch.cu: launch_async, launch_sync.
Measurement run_launch_latency(int gpu, TestId id, const TimingPlan& plan);

// p2p.cpp: copies from `from_gpu` to `to_gpu` (the caller checks peer access).
Measurement run_p2p(int from_gpu, int to_gpu, const TimingPlan& plan);

}  // namespace gpuwatch::bench_cuda
