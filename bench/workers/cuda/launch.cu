// Kernel launch latency with an empty kernel: queued back to back (the
// launch path's throughput, what many small kernels cost), and launched then
// waited for (the round trip a synchronizing loop pays).
#include "cuda_util.h"
#include "micro_tests.h"

namespace gpuwatch::bench_cuda {

namespace {

__global__ void empty_kernel() {}

}  // namespace

Measurement run_launch_latency(int gpu, TestId id, const TimingPlan& plan) {
  if (id != TestId::launch_async && id != TestId::launch_sync) throw BenchError("not a launch test");
  use_device(gpu);
  const MemoryProbe probe;
  const Stream stream;
  std::function<void()> step;
  if (id == TestId::launch_async) {
    step = [&] { empty_kernel<<<1, 1, 0, stream.get()>>>(); };
  } else {
    step = [&] {
      empty_kernel<<<1, 1, 0, stream.get()>>>();
      check_cuda(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize");
    };
  }
  return measure(stream.get(), step, plan, probe.used_mb());
}

}  // namespace gpuwatch::bench_cuda
