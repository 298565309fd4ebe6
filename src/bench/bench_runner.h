// Runs the load-test workers as child processes while the sampler watches
// every GPU at a fine interval, and joins each worker result to what the
// sampler saw during that test.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_run.h"
#include "live/watcher.h"  // SystemPaths, which the Watcher opens backends from

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
  // Where /sys and /proc are read from (GPUWATCH_SYSFS_ROOT and the other
  // variables): the command line reads the environment, not the library.
  SystemPaths paths;
};

class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws BenchError when nothing can run (a worker not built, no GPU for
// --device cuda, a bad --gpus). Failed tests and workers that died are in
// the result, not thrown.
BenchRun run_bench(const BenchOptions& options);

// $GPUWATCH_BENCH_WORKER_DIR, else the folder of the running gpuwatch.
std::filesystem::path default_worker_dir();

}  // namespace gpuwatch
