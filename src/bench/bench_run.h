// One `gpuwatch bench`: the workers' results, what the sampler saw during
// each test, and how they compare with the hardware and with one another.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/bench_analysis.h"
#include "bench/worker_message.h"

namespace gpuwatch {

struct BenchSystemInfo {
  std::string hostname;
  std::string device;  // "cuda" or "cpu"
  std::vector<std::string> gpu_names;
  std::string driver_version;
  std::optional<std::string> cuda_version;
  std::optional<std::string> torch_version;
  int cpu_count = 0;
  double memory_total_bytes = 0;
  std::string gpuwatch_version;
};

struct BenchTest {
  std::string worker;  // "cuda", "torch"
  WorkerResult result;
  TestResources resources;
  std::optional<PeakValue> peak;
  std::optional<double> percent_of_peak;
  bool straggler = false;
};

struct BenchSpread {
  std::string test;    // the test's name without its GPU suffix
  std::string metric;  // "tflops", "gb_per_s", "throughput_samples_per_second"
  GpuSpread spread;
};

struct BenchRun {
  BenchSystemInfo system;
  std::int64_t start_wall_ns = 0;
  double duration_s = 0;
  std::string suite;
  bool quick = false;
  double sample_interval_s = 0.1;
  std::vector<BenchTest> tests;
  std::vector<BenchSpread> spreads;
  std::vector<std::string> errors;    // a worker that could not run, or ended badly
  std::vector<std::string> warnings;  // a worker that printed lines outside the protocol
  // A suite of --suite all that could not run here, and how to get it
  // ("the models suite: the torch worker is not there (...): ...").
  std::vector<std::string> skipped;

  [[nodiscard]] std::size_t failed_tests() const;
  // Any failed test or worker error: `bench` then exits non-zero.
  [[nodiscard]] bool failed() const { return failed_tests() > 0 || !errors.empty(); }
};

// The value a test is judged by, and its name: TFLOP/s, GB/s, samples/s;
// nullopt for latency tests (lower is better, not a rate).
struct TestRate {
  std::string metric;
  double value = 0;
};
std::optional<TestRate> rate_of(const WorkerResult& r);

// After the run: % of peak for each test (devices' names and PCIe links from
// the samples), and the spread of every test that ran on several GPUs.
void add_peaks_and_spreads(BenchRun& run, const RunData& samples);

}  // namespace gpuwatch
