// `gpuwatch bench` results as text: seed 003's JSON (with our extra fields) and the
// table printed at the end; `bench compare` of two result files.
#pragma once

#include <string>

#include "bench/bench_file.h"
#include "bench/bench_run.h"

namespace gpuwatch {

// The results file carries it (seed 003's files had none). 2: a test's GPU
// is "gpu" (docs/report-json.md, "Changed in schema_version 2").
inline constexpr int kBenchSchemaVersion = 2;

std::string render_bench_json(const BenchRun& run);
std::string render_bench_table(const BenchRun& run);
std::string render_bench_comparison(const BenchFile& a, const BenchFile& b);

}  // namespace gpuwatch
