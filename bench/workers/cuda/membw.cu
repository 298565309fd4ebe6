// Device memory bandwidth: read, write and copy kernels (float4, grid-stride,
// as many resident blocks as fit), and cudaMemcpy device to device, which is
// what torch's copy_ between GPU tensors does.
#include <algorithm>
#include <string>

#include "cuda_util.h"
#include "micro_tests.h"

namespace gpuwatch::bench_cuda {

namespace {

constexpr int kThreadsPerBlock = 256;

__device__ std::size_t first_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ std::size_t grid_stride() { return static_cast<std::size_t>(gridDim.x) * blockDim.x; }

// The sum is stored only when it equals a value the zeroed buffer cannot
// sum to; the compiler cannot know that, so it must keep every load.
__global__ void read_kernel(const float4* __restrict__ source, std::size_t count, float* __restrict__ sink) {
  float sum = 0.0f;
#pragma unroll 4
  for (std::size_t i = first_index(); i < count; i += grid_stride()) {
    const float4 v = source[i];
    sum += v.x + v.y + v.z + v.w;
  }
  if (sum == -1.0f) *sink = sum;
}

__global__ void write_kernel(float4* __restrict__ target, std::size_t count, float value) {
  const float4 v = make_float4(value, value, value, value);
#pragma unroll 4
  for (std::size_t i = first_index(); i < count; i += grid_stride()) target[i] = v;
}

__global__ void copy_kernel(const float4* __restrict__ source, float4* __restrict__ target, std::size_t count) {
#pragma unroll 4
  for (std::size_t i = first_index(); i < count; i += grid_stride()) target[i] = source[i];
}

// Enough blocks to fill every multiprocessor once, no more: each thread then
// walks the buffer, and no block waits for a slot.
template <typename Kernel>
unsigned resident_blocks(Kernel kernel) {
  int blocks_per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, kThreadsPerBlock, 0),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return static_cast<unsigned>(std::max(1, blocks_per_sm) * multiprocessor_count());
}

// 1 GiB a buffer, or less where a quarter of free memory is less, so that
// two buffers leave half the memory to whoever else is on the GPU.
std::size_t buffer_bytes() {
  const std::size_t quarter = free_device_memory() / 4;
  const std::size_t bytes = std::min(kDeviceBufferBytes, quarter) / kMebibyte * kMebibyte;
  if (bytes < 64 * kMebibyte) {
    throw BenchError("only " + std::to_string(quarter * 4 / kMebibyte) +
                     " MiB of device memory free: the bandwidth test needs at least 256 MiB");
  }
  return bytes;
}

}  // namespace

Measurement run_memory_bandwidth(int gpu, TestId id, const TimingPlan& plan) {
  use_device(gpu);
  const MemoryProbe probe;
  const std::size_t bytes = buffer_bytes();
  const std::size_t count = bytes / sizeof(float4);
  const DeviceMemory source(bytes);
  const DeviceMemory target(id == TestId::membw_copy || id == TestId::membw_memcpy ? bytes : 0);
  const DeviceMemory sink(sizeof(float));
  const Stream stream;
  check_cuda(cudaMemsetAsync(source.data(), 0, bytes, stream.get()), "cudaMemsetAsync");
  check_cuda(cudaStreamSynchronize(stream.get()), "zeroing the buffer");

  std::function<void()> step;
  double bytes_per_iteration = static_cast<double>(bytes);
  switch (id) {
    case TestId::membw_read: {
      const unsigned blocks = resident_blocks(read_kernel);
      step = [&, blocks] {
        read_kernel<<<blocks, kThreadsPerBlock, 0, stream.get()>>>(source.as<float4>(), count, sink.as<float>());
      };
      break;
    }
    case TestId::membw_write: {
      const unsigned blocks = resident_blocks(write_kernel);
      step = [&, blocks] {
        write_kernel<<<blocks, kThreadsPerBlock, 0, stream.get()>>>(source.as<float4>(), count, 1.0f);
      };
      break;
    }
    case TestId::membw_copy: {
      const unsigned blocks = resident_blocks(copy_kernel);
      step = [&, blocks] {
        copy_kernel<<<blocks, kThreadsPerBlock, 0, stream.get()>>>(source.as<float4>(), target.as<float4>(),
                                                                    count);
      };
      bytes_per_iteration = 2.0 * static_cast<double>(bytes);
      break;
    }
    case TestId::membw_memcpy:
      step = [&] {
        check_cuda(cudaMemcpyAsync(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, stream.get()),
                   "cudaMemcpyAsync");
      };
      bytes_per_iteration = 2.0 * static_cast<double>(bytes);
      break;
    default: throw BenchError("not a memory bandwidth test");
  }
  Measurement measurement = measure(stream.get(), step, plan, probe.used_mb());
  measurement.bytes_per_iteration = bytes_per_iteration;
  return measurement;
}

}  // namespace gpuwatch::bench_cuda
