// What the worker needs from CUDA beyond libtorch's device-neutral API: device
// facts, the caching allocator's peak, the CUDA version. cuda_support.cpp
// implements it against a CUDA build of libtorch; cuda_support_none.cpp is the
// stand-in for CPU-only builds (Debian's libtorch), so callers have no #if.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuwatch::bench_torch {

struct GpuFacts {
  int index = 0;
  std::string name;
  std::int64_t memory_bytes = 0;
  int multiprocessors = 0;
  std::string compute_capability;  // "9.0"
};

// The CUDA runtime libtorch uses, as "13.0"; nullopt in a CPU-only build.
std::optional<std::string> cuda_runtime_version();

// cuDNN as libtorch reports it (90100 for 9.1.0); nullopt without cuDNN.
std::optional<long> cudnn_version();

std::vector<GpuFacts> gpu_facts();

// Peak of the memory that tensors held on the device since the last reset, as
// torch.cuda.max_memory_allocated() counts it, in MiB.
void reset_peak_memory(int gpu);
std::optional<double> peak_memory_mib(int gpu);

// Returns the caching allocator's unused blocks to the driver between tests.
void release_cached_memory();

}  // namespace gpuwatch::bench_torch
