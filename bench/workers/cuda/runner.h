// Runs the selected tests on the selected GPUs and writes the protocol's
// lines; returns the process exit code.
#pragma once

#include "cli.h"

namespace gpuwatch::bench_cuda {

int run_benchmarks(const Options& options);

}  // namespace gpuwatch::bench_cuda
