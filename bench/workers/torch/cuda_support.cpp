// Built only against a CUDA build of libtorch (CMake checks for torch_cuda).
#include "cuda_support.h"

#include <exception>

#include <ATen/cuda/CUDAContext.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <torch/cuda.h>

namespace gpuwatch::bench_torch {

namespace allocator = c10::cuda::CUDACachingAllocator;

// The versions are facts for the info line, not worth stopping the run for.
std::optional<std::string> cuda_runtime_version() {
  try {
    const long version = at::detail::getCUDAHooks().versionCUDART();  // 13000 for 13.0
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<long> cudnn_version() {
  try {
    if (!torch::cuda::cudnn_is_available()) return std::nullopt;
    return at::detail::getCUDAHooks().versionCuDNN();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<GpuFacts> gpu_facts() {
  std::vector<GpuFacts> facts;
  if (!torch::cuda::is_available()) return facts;
  const auto count = static_cast<int>(torch::cuda::device_count());
  for (int index = 0; index < count; ++index) {
    const cudaDeviceProp* props = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(index));
    facts.push_back({index, props->name, static_cast<std::int64_t>(props->totalGlobalMem),
                     props->multiProcessorCount,
                     std::to_string(props->major) + "." + std::to_string(props->minor)});
  }
  return facts;
}

void reset_peak_memory(int gpu) { allocator::resetPeakStats(static_cast<c10::DeviceIndex>(gpu)); }

std::optional<double> peak_memory_mib(int gpu) {
  const auto stats = allocator::getDeviceStats(static_cast<c10::DeviceIndex>(gpu));
  // Index 0 is StatType::AGGREGATE (all pools), whose namespace moved between
  // libtorch versions while its place did not.
  const std::int64_t peak_bytes = stats.allocated_bytes[0].peak;
  return static_cast<double>(peak_bytes) / (1024.0 * 1024.0);
}

void release_cached_memory() { allocator::emptyCache(); }

}  // namespace gpuwatch::bench_torch
