// Host<->device bandwidth over PCIe or NVLink-C2C: 256 MiB copies from and to
// pinned memory (DMA straight from the buffer) and pageable memory (staged
// by the driver through its own pinned buffers).
#include <memory>

#include "cuda_util.h"
#include "micro_tests.h"

namespace gpuwatch::bench_cuda {

Measurement run_host_device(int gpu, TestId id, const TimingPlan& plan) {
  const bool to_device = id == TestId::h2d_pinned || id == TestId::h2d_pageable;
  const bool pinned = id == TestId::h2d_pinned || id == TestId::d2h_pinned;
  if (!to_device && id != TestId::d2h_pinned && id != TestId::d2h_pageable) {
    throw BenchError("not a host-device test");
  }
  use_device(gpu);
  const MemoryProbe probe;
  const std::size_t bytes = kTransferBytes;
  const DeviceMemory device(bytes);
  std::unique_ptr<PinnedMemory> pinned_host;
  std::unique_ptr<std::byte[]> pageable_host;
  void* host = nullptr;
  if (pinned) {
    pinned_host = std::make_unique<PinnedMemory>(bytes);
    host = pinned_host->data();
  } else {
    // Zeroed, so that its pages exist before the warm-up.
    pageable_host = std::make_unique<std::byte[]>(bytes);
    host = pageable_host.get();
  }
  const Stream stream;
  check_cuda(cudaMemsetAsync(device.data(), 0, bytes, stream.get()), "cudaMemsetAsync");

  void* target = to_device ? device.data() : host;
  const void* source = to_device ? host : device.data();
  const cudaMemcpyKind kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  const auto step = [&] {
    check_cuda(cudaMemcpyAsync(target, source, bytes, kind, stream.get()), "cudaMemcpyAsync");
  };
  Measurement measurement = measure(stream.get(), step, plan, probe.used_mb());
  measurement.bytes_per_iteration = static_cast<double>(bytes);
  return measurement;
}

}  // namespace gpuwatch::bench_cuda
