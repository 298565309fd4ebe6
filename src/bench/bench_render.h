// `gpuwatch bench` results as text: seed 003's JSON (with our extra fields) and the
// table printed at the end; `bench compare` of two result files.
#pragma once

#include <string>

#include "bench/bench_file.h"
#include "bench/bench_run.h"

namespace gpuwatch {

std::string render_bench_json(const BenchRun& run);
std::string render_bench_table(const BenchRun& run);
std::string render_bench_comparison(const BenchFile& a, const BenchFile& b);

}  // namespace gpuwatch
