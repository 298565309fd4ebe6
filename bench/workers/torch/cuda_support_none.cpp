// CPU-only libtorch: no GPU facts, no device memory to measure.
#include "cuda_support.h"

namespace gpuwatch::bench_torch {

std::optional<std::string> cuda_runtime_version() { return std::nullopt; }
std::optional<long> cudnn_version() { return std::nullopt; }
std::vector<GpuFacts> gpu_facts() { return {}; }
void reset_peak_memory(int /*gpu*/) {}
std::optional<double> peak_memory_mib(int /*gpu*/) { return std::nullopt; }
void release_cached_memory() {}

}  // namespace gpuwatch::bench_torch
