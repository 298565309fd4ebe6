// gpuwatch-bench-torch: seed 003's model suite in libtorch, run by
// `gpuwatch bench` as a child process (protocol: docs/bench-workers.md).
#include <exception>
#include <iostream>
#include <string_view>
#include <vector>

#include <c10/util/Exception.h>
#include <torch/cuda.h>
#include <torch/types.h>
#include <torch/utils.h>
#include <torch/version.h>

#include "cuda_support.h"
#include "json_line.h"
#include "options.h"
#include "protocol_lines.h"
#include "run_test.h"
#include "suite.h"

namespace gpuwatch::bench_torch {
namespace {

constexpr int kExitCannotRun = 1;
constexpr int kExitUsage = 2;

std::optional<std::string> check_device(const RunConfig& config) {
  if (!config.cuda) return std::nullopt;
  if (!torch::cuda::is_available()) {
    return std::string("no CUDA device: libtorch ") + TORCH_VERSION + " sees none (try --device cpu)";
  }
  const auto count = static_cast<int>(torch::cuda::device_count());
  if (config.gpu >= count) {
    return "no GPU " + std::to_string(config.gpu) + ": libtorch sees " + std::to_string(count);
  }
  return std::nullopt;
}

void run_suite(const std::vector<TestSpec>& tests, const RunConfig& config) {
  std::size_t done = 0;
  for (const TestSpec& spec : tests) {
    ++done;
    std::optional<TestMeasurement> measurement;
    std::optional<std::string> error;
    try {
      measurement = run_test(spec, config, [&] { emit(start_line(spec, config)); });
    } catch (const c10::Error& e) {
      error = e.what_without_backtrace();  // what() adds libtorch's stack trace
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (config.cuda) release_cached_memory();
    emit(result_line(spec, config, measurement, error));
    std::cerr << "[" << done << "/" << tests.size() << "] " << spec.name << ": ";
    if (error) {
      std::cerr << "FAILED: " << error->substr(0, error->find('\n')) << '\n';
    } else {
      std::cerr << static_cast<double>(measurement->iterations) * spec.batch_size / measurement->duration_seconds
                << " samples/s\n";
    }
  }
}

int run(const std::vector<std::string_view>& args) {
  const ParsedOptions parsed = parse_options(args);
  if (parsed.error) {
    emit_error(*parsed.error);
    return kExitUsage;
  }
  const Options& options = parsed.options;
  if (options.help) {
    std::cout << usage_text();
    return 0;
  }
  std::vector<TestSpec> tests;
  for (TestSpec& spec : seed_suite()) {
    if (selected(spec.name, options.tests)) tests.push_back(std::move(spec));
  }
  if (tests.empty()) {
    emit_error("no test name starts with any of --tests (see --list)");
    return kExitUsage;
  }
  const bool cuda = options.device ? *options.device == "cuda" : torch::cuda::is_available();
  const RunConfig config = resolve(options, cuda);
  if (options.list) {
    for (const TestSpec& spec : tests) emit(test_line(spec, config));
    return 0;
  }
  if (const auto problem = check_device(config)) {
    emit_error(*problem);
    return kExitCannotRun;
  }
  if (config.cuda) {
    // The caching allocator starts with the first CUDA tensor; its statistics
    // cannot be reset before that.
    torch::zeros({1}, torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(config.gpu)));
    torch::cuda::synchronize(config.gpu);
  }
  torch::manual_seed(0);
  emit(info_line(config));
  run_suite(tests, config);
  return 0;
}

}  // namespace
}  // namespace gpuwatch::bench_torch

int main(int argc, char** argv) {
  try {
    return gpuwatch::bench_torch::run(std::vector<std::string_view>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    gpuwatch::bench_torch::emit_error(std::string("cannot run: ") + e.what());
    return 1;
  }
}
