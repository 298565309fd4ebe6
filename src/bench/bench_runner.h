// Runs the load-test workers as child processes while the sampler watches
// every GPU at a fine interval, and joins each worker result to what the
// sampler saw during that test.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/system_paths.h"
#include "bench/bench_run.h"

namespace gpuwatch {

struct BenchOptions {
  std::string suite = "all";     // micro (CUDA worker), models (libtorch worker), all
  bool quick = false;
  std::string device = "cuda";   // cuda or cpu
  std::vector<int> gpus;         // empty: all
  double sample_interval_s = 0.1;
  std::optional<int> num_epochs;
  std::optional<int> num_batches;
  std::optional<int> num_workers;
  bool amp = false;
  bool channels_last = false;
  std::optional<std::filesystem::path> log_file;  // the workers' stderr, and one line per test
  bool progress = false;         // a progress bar on stderr (a terminal)
  std::filesystem::path worker_dir;  // where gpuwatch-bench-cuda and -torch are
  // From gpuwatch's environment (cli/ reads it): where to read the system,
  // and what the workers inherit.
  SystemPaths paths;
  std::vector<std::string> environment;
};

class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws BenchError when nothing can run (a worker not built, no GPU for
// --device cuda, a bad --gpus). Failed tests and workers that died are in
// the result, not thrown.
BenchRun run_bench(const BenchOptions& options);

// `variable` ($GPUWATCH_BENCH_WORKER_DIR) when set and not empty, else the
// folder of the running gpuwatch.
std::filesystem::path default_worker_dir(const std::optional<std::string>& variable);

}  // namespace gpuwatch
