// The worker's command line: flags, --list and the --tests filter. Pure C++.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalogue.h"

namespace gpuwatch::bench_cuda {

struct Options {
  bool quick = false;
  std::optional<std::vector<int>> gpus;  // nullopt: every visible GPU
  std::vector<std::string> tests;        // empty: every test
};

enum class Action { run, help, list, usage_error };

struct ParsedArgs {
  Action action = Action::run;
  Options options;
  std::string error;  // set with Action::usage_error
};

ParsedArgs parse_args(const std::vector<std::string>& args);

std::string usage_text();

// Square matmul size: 8192 fills the biggest chips; 4096 with --quick.
int matmul_size(const Options& options);
// How long each test's timed part runs at least.
double target_seconds(const Options& options);

// A --tests entry selects a test when it is the test's family keyword or a
// prefix of its name: "h2d" selects h2d_* and d2h_*, "matmul_bf16" both the
// per-GPU and the all-GPU bf16 matmul.
bool test_selected(const Options& options, Family family, std::string_view test_name);

// What --list prints: the selected test names in run order; the all-GPU and
// p2p tests, which depend on the GPUs found, with placeholders.
std::vector<std::string> listed_test_names(const Options& options);

}  // namespace gpuwatch::bench_cuda
