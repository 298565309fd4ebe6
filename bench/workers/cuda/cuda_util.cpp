#include "cuda_util.h"

#include <array>

namespace gpuwatch::bench_cuda {

std::string cuda_error_text(cudaError_t status, std::string_view what) {
  return std::string(what) + ": " + cudaGetErrorString(status) + " (" + cudaGetErrorName(status) + ")";
}

void check_cuda(cudaError_t status, std::string_view what) {
  if (status == cudaSuccess) return;
  // Clears the error unless it is sticky, so that the next test starts clean.
  (void)cudaGetLastError();
  throw BenchError(cuda_error_text(status, what));
}

DeviceMemory::DeviceMemory(std::size_t bytes) : bytes_(bytes) {
  check_cuda(cudaGetDevice(&device_), "cudaGetDevice");
  if (bytes == 0) return;
  check_cuda(cudaMalloc(&data_, bytes),
             "cudaMalloc of " + std::to_string(bytes / kMebibyte) + " MiB");
}

DeviceMemory::~DeviceMemory() {
  if (data_ == nullptr) return;
  // cudaFree needs no particular device under unified addressing, but a
  // device that is current frees without waiting on the other's work.
  int current = device_;
  (void)cudaGetDevice(&current);
  if (current != device_) (void)cudaSetDevice(device_);
  (void)cudaFree(data_);
  if (current != device_) (void)cudaSetDevice(current);
}

PinnedMemory::PinnedMemory(std::size_t bytes) {
  check_cuda(cudaMallocHost(&data_, bytes),
             "cudaMallocHost of " + std::to_string(bytes / kMebibyte) + " MiB");
}

PinnedMemory::~PinnedMemory() { (void)cudaFreeHost(data_); }

Stream::Stream() {
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
}

Stream::~Stream() {
  (void)cudaStreamSynchronize(stream_);
  (void)cudaStreamDestroy(stream_);
}

Event::Event() { check_cuda(cudaEventCreate(&event_), "cudaEventCreate"); }

Event::~Event() { (void)cudaEventDestroy(event_); }

std::size_t free_device_memory() {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return free_bytes;
}

double MemoryProbe::used_mb() const {
  const std::size_t free_now = free_device_memory();
  const std::size_t used = free_before_ > free_now ? free_before_ - free_now : 0;
  return static_cast<double>(used) / static_cast<double>(kMebibyte);
}

void use_device(int gpu) {
  check_cuda(cudaSetDevice(gpu), "cudaSetDevice(" + std::to_string(gpu) + ")");
  check_cuda(cudaFree(nullptr), "creating the CUDA context of GPU " + std::to_string(gpu));
}

DeviceFacts device_facts(int gpu) {
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, gpu), "cudaGetDeviceProperties");
  DeviceFacts facts;
  facts.index = gpu;
  facts.name = properties.name;
  facts.memory_bytes = properties.totalGlobalMem;
  facts.compute_capability_major = properties.major;
  facts.compute_capability_minor = properties.minor;
  facts.multiprocessor_count = properties.multiProcessorCount;
  std::array<char, 32> bus_id{};
  if (cudaDeviceGetPCIBusId(bus_id.data(), static_cast<int>(bus_id.size()), gpu) == cudaSuccess) {
    facts.pci_bus_id = bus_id.data();
  } else {
    (void)cudaGetLastError();
  }
  return facts;
}

int compute_capability(int gpu) {
  int major = 0;
  int minor = 0;
  check_cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, gpu),
             "cudaDeviceGetAttribute");
  check_cuda(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, gpu),
             "cudaDeviceGetAttribute");
  return major * 10 + minor;
}

int multiprocessor_count() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  int count = 0;
  check_cuda(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device),
             "cudaDeviceGetAttribute");
  return count;
}

}  // namespace gpuwatch::bench_cuda
