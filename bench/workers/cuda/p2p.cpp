// Peer-to-peer copy bandwidth between two GPUs, over NVLink or PCIe, with
// peer access enabled so that the copy engines move the data directly.
#include <algorithm>
#include <string>

#include "cuda_util.h"
#include "micro_tests.h"

namespace gpuwatch::bench_cuda {

namespace {

// Peer access from the current device to `peer` for the guard's lifetime,
// unless it was on already (then it stays on).
class PeerAccess {
 public:
  PeerAccess(int device, int peer) : device_(device), peer_(peer) {
    const cudaError_t status = cudaDeviceEnablePeerAccess(peer, 0);
    if (status == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();
      return;
    }
    check_cuda(status, "cudaDeviceEnablePeerAccess(" + std::to_string(device) + " -> " +
                           std::to_string(peer) + ")");
    enabled_here_ = true;
  }
  ~PeerAccess() {
    if (!enabled_here_) return;
    int current = device_;
    (void)cudaGetDevice(&current);
    (void)cudaSetDevice(device_);
    (void)cudaDeviceDisablePeerAccess(peer_);
    (void)cudaSetDevice(current);
  }
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;

 private:
  int device_;
  int peer_;
  bool enabled_here_ = false;
};

}  // namespace

Measurement run_p2p(int from_gpu, int to_gpu, const TimingPlan& plan) {
  use_device(to_gpu);
  const std::size_t free_on_target = free_device_memory();
  use_device(from_gpu);
  const MemoryProbe probe;
  const std::size_t bytes = std::min(kTransferBytes, std::min(free_device_memory(), free_on_target) / 4);
  if (bytes < kMebibyte) throw BenchError("not enough free device memory for a peer-to-peer copy");
  const PeerAccess access(from_gpu, to_gpu);
  const DeviceMemory source(bytes);
  use_device(to_gpu);
  const DeviceMemory target(bytes);
  use_device(from_gpu);
  const Stream stream;
  check_cuda(cudaMemsetAsync(source.data(), 0, bytes, stream.get()), "cudaMemsetAsync");

  const auto step = [&] {
    check_cuda(cudaMemcpyPeerAsync(target.data(), to_gpu, source.data(), from_gpu, bytes, stream.get()),
               "cudaMemcpyPeerAsync");
  };
  Measurement measurement = measure(stream.get(), step, plan, probe.used_mb());
  measurement.bytes_per_iteration = static_cast<double>(bytes);
  return measurement;
}

}  // namespace gpuwatch::bench_cuda
