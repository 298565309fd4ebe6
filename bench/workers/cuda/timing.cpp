#include "timing.h"

#include "cuda_util.h"
#include "result.h"

namespace gpuwatch::bench_cuda {

namespace {

// A cap that an empty-kernel loop at ~1 us per launch cannot reach in 1 s
// tenfold; it only guards against a pilot that measured nothing.
constexpr std::int64_t kMaxIterations = 10'000'000;

double timed_seconds(cudaStream_t stream, const std::function<void()>& step, std::int64_t iterations) {
  const Event start;
  const Event stop;
  check_cuda(cudaEventRecord(start.get(), stream), "cudaEventRecord");
  for (std::int64_t i = 0; i < iterations; ++i) step();
  check_cuda(cudaEventRecord(stop.get(), stream), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(stop.get()), "waiting for the timed iterations");
  check_cuda(cudaGetLastError(), "a kernel launch in the timed iterations");
  float milliseconds = 0.0f;
  check_cuda(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()), "cudaEventElapsedTime");
  return static_cast<double>(milliseconds) / 1e3;
}

}  // namespace

Timing time_iterations(cudaStream_t stream, const std::function<void()>& step, const TimingPlan& plan) {
  for (int i = 0; i < plan.warmup_iterations; ++i) step();
  check_cuda(cudaStreamSynchronize(stream), "waiting for the warm-up iterations");
  check_cuda(cudaGetLastError(), "a kernel launch in the warm-up");

  // The pilot grows fourfold until it lasts a twentieth of the target, so a
  // slow step (fp32 matmul on a small card) is not run for long for nothing.
  std::int64_t pilot_iterations = 1;
  double pilot_seconds = timed_seconds(stream, step, pilot_iterations);
  while (pilot_seconds < plan.target_seconds / 20 && pilot_iterations < kMaxIterations / 4) {
    pilot_iterations *= 4;
    pilot_seconds = timed_seconds(stream, step, pilot_iterations);
  }
  Timing timing;
  timing.iterations = iterations_for(plan.target_seconds, pilot_seconds, pilot_iterations, kMaxIterations);
  if (plan.before_timed) plan.before_timed();
  timing.seconds = timed_seconds(stream, step, timing.iterations);
  return timing;
}

Measurement measure(cudaStream_t stream, const std::function<void()>& step, const TimingPlan& plan,
                    double peak_gpu_memory_mb) {
  const Timing timing = time_iterations(stream, step, plan);
  Measurement measurement;
  measurement.iterations = timing.iterations;
  measurement.duration_seconds = timing.seconds;
  measurement.peak_gpu_memory_mb = peak_gpu_memory_mb;
  return measurement;
}

}  // namespace gpuwatch::bench_cuda
