#include "runner.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <barrier>
#include <cstdio>
#include <functional>
#include <numeric>
#include <system_error>
#include <thread>

#include "cuda_util.h"
#include "json_lines.h"
#include "micro_tests.h"

#ifndef GPUWATCH_VERSION
#define GPUWATCH_VERSION "unknown"
#endif

namespace gpuwatch::bench_cuda {

namespace {

// fp8 tensor cores: Ada (8.9) and Hopper (9.0) onwards.
constexpr int kFp8ComputeCapability = 89;

void say(const std::string& text) { std::fprintf(stderr, "gpuwatch-bench-cuda: %s\n", text.c_str()); }

BenchResult identity(std::string test_name, Family family, std::string description,
                     std::string_view model_name, std::optional<int> gpu,
                     std::optional<std::string_view> precision) {
  BenchResult result;
  result.test_name = std::move(test_name);
  result.family = family;
  result.description = std::move(description);
  result.model_name = model_name;
  result.gpu = gpu;
  if (precision) result.precision = std::string(*precision);
  return result;
}

// A plan whose start line names this test; `before` runs first (the barrier).
TimingPlan plan_for(const Options& options, const BenchResult& result,
                    std::function<void()> before = nullptr) {
  TimingPlan plan;
  plan.target_seconds = target_seconds(options);
  plan.before_timed = [name = result.test_name, gpu = result.gpu, before = std::move(before)] {
    if (before) before();
    emit(start_line(name, gpu));
  };
  return plan;
}

// A failure of the measured thing is data: it becomes the result.
void run_into(BenchResult& result, const std::function<Measurement()>& body) {
  try {
    record_measurement(result, body());
  } catch (const std::exception& error) {
    record_failure(result, error.what());
  } catch (...) {
    record_failure(result, "unknown error");
  }
}

void report(const BenchResult& result) {
  emit(result_line(result));
  say(result_summary(result));
}

void run_per_gpu_tests(const Options& options, int gpu) {
  const int size = matmul_size(options);
  std::optional<int> capability;
  try {
    capability = compute_capability(gpu);
  } catch (const std::exception& error) {
    say(error.what());
  }
  for (const TestEntry& test : per_gpu_tests(size)) {
    if (!test_selected(options, test.family, test.name)) continue;
    const std::optional<std::string_view> precision = matmul_precision(test.id);
    // An A100 without fp8 is not a failing A100: the test is left out.
    if (test.id == TestId::matmul_fp8 && capability && *capability < kFp8ComputeCapability) {
      say(test.name + " skipped on GPU " + std::to_string(gpu) + ": fp8 needs compute capability 8.9");
      continue;
    }
    BenchResult result = identity(test.name, test.family, test_description(test.id, size),
                                  test_model_name(test.id), gpu, precision);
    run_into(result, [&] {
      const TimingPlan plan = plan_for(options, result);
      switch (test.family) {
        case Family::matmul: return run_matmul(gpu, *precision, size, plan);
        case Family::membw: return run_memory_bandwidth(gpu, test.id, plan);
        case Family::host_device: return run_host_device(gpu, test.id, plan);
        case Family::launch: return run_launch_latency(gpu, test.id, plan);
        case Family::p2p: break;
      }
      throw BenchError("not a per-GPU test");
    });
    report(result);
  }
}

// The bf16 matmul on every GPU at once, one thread each; their timed parts
// start together after a barrier. A thread that fails before the barrier
// drops out of it, so that the others do not wait for it for ever.
void run_all_gpus_matmul(const Options& options, const std::vector<int>& gpus) {
  const int size = matmul_size(options);
  const std::string name = all_gpus_test_name(size);
  std::barrier barrier(static_cast<std::ptrdiff_t>(gpus.size()));
  std::vector<BenchResult> results;
  for (const int gpu : gpus) {
    results.push_back(identity(name, Family::matmul, all_gpus_test_description(size),
                               test_model_name(TestId::matmul_bf16), gpu, "bf16"));
  }
  std::vector<std::thread> threads;
  threads.reserve(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const auto body = [&, i] {
      bool arrived = false;
      run_into(results[i], [&] {
        const TimingPlan plan = plan_for(options, results[i], [&] {
          barrier.arrive_and_wait();
          arrived = true;
        });
        return run_matmul(gpus[i], "bf16", size, plan);
      });
      if (!arrived) barrier.arrive_and_drop();
    };
    try {
      threads.emplace_back(body);
    } catch (const std::system_error& error) {
      record_failure(results[i], std::string("starting a thread: ") + error.what());
      barrier.arrive_and_drop();
    }
  }
  for (std::thread& thread : threads) thread.join();
  for (const BenchResult& result : results) report(result);
}

void run_p2p_tests(const Options& options, const std::vector<int>& gpus) {
  for (const int from : gpus) {
    for (const int to : gpus) {
      if (from == to) continue;
      const std::string name = p2p_test_name(from, to);
      if (!test_selected(options, Family::p2p, name)) continue;
      int can_access = 0;
      const cudaError_t status = cudaDeviceCanAccessPeer(&can_access, from, to);
      if (status != cudaSuccess || can_access == 0) {
        (void)cudaGetLastError();
        say(name + " skipped: GPU " + std::to_string(from) + " cannot access GPU " + std::to_string(to) +
            " as a peer");
        continue;
      }
      BenchResult result = identity(name, Family::p2p, p2p_test_description(from, to), kP2pModelName,
                                    from, std::nullopt);
      run_into(result, [&] { return run_p2p(from, to, plan_for(options, result)); });
      report(result);
    }
  }
}

WorkerFacts worker_facts(const std::vector<int>& gpus) {
  WorkerFacts facts;
  facts.version = GPUWATCH_VERSION;
  int version = 0;
  if (cudaRuntimeGetVersion(&version) == cudaSuccess) facts.cuda_version = cuda_version_string(version);
  if (cudaDriverGetVersion(&version) == cudaSuccess) facts.cuda_driver_version = cuda_version_string(version);
  facts.cublaslt_version = static_cast<std::int64_t>(cublasLtGetVersion());
  for (const int gpu : gpus) facts.devices.push_back(device_facts(gpu));
  return facts;
}

}  // namespace

int run_benchmarks(const Options& options) {
  int device_count = 0;
  const cudaError_t status = cudaGetDeviceCount(&device_count);
  if (status != cudaSuccess || device_count == 0) {
    const std::string why = status != cudaSuccess ? cuda_error_text(status, "cudaGetDeviceCount")
                                                  : "cudaGetDeviceCount found none";
    emit(error_line("no CUDA device: " + why));
    say("no CUDA device: " + why);
    return 1;
  }
  std::vector<int> gpus(static_cast<std::size_t>(device_count));
  std::iota(gpus.begin(), gpus.end(), 0);
  if (options.gpus) gpus = *options.gpus;
  for (const int gpu : gpus) {
    if (gpu >= device_count) {
      const std::string message = "--gpus: there is no GPU " + std::to_string(gpu) + " (" +
                                  std::to_string(device_count) + " CUDA devices)";
      emit(error_line(message));
      say(message);
      return 2;
    }
  }
  try {
    emit(info_line(worker_facts(gpus)));
  } catch (const std::exception& error) {
    emit(error_line(error.what()));
    say(error.what());
    return 1;
  }

  for (const int gpu : gpus) run_per_gpu_tests(options, gpu);
  if (gpus.size() > 1 && test_selected(options, Family::matmul, all_gpus_test_name(matmul_size(options)))) {
    run_all_gpus_matmul(options, gpus);
  }
  if (gpus.size() > 1) run_p2p_tests(options, gpus);
  return 0;
}

}  // namespace gpuwatch::bench_cuda
