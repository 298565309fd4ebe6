// The info, start and result lines of the worker protocol for this worker.
#pragma once

#include <optional>
#include <string>

#include "json_line.h"
#include "options.h"
#include "run_test.h"
#include "suite.h"

namespace gpuwatch::bench_torch {

JsonLine info_line(const RunConfig& config);

JsonLine start_line(const TestSpec& spec, const RunConfig& config);

// One sentence: the seed's words for the test, then what exactly ran.
std::string describe(const TestSpec& spec, const RunConfig& config);

// A test that ran (`error` unset) or failed (`measurement` unset).
JsonLine result_line(const TestSpec& spec, const RunConfig& config, const std::optional<TestMeasurement>& measurement,
                     const std::optional<std::string>& error);

// The --list line of one test.
JsonLine test_line(const TestSpec& spec, const RunConfig& config);

}  // namespace gpuwatch::bench_torch
