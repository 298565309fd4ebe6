// Command line of gpuwatch-bench-torch, and its defaults once the device is
// known. No torch here: the flags are parsed before libtorch is touched.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::bench_torch {

struct Options {
  std::optional<std::string> device;  // "cuda" or "cpu"; unset: cuda when available
  int gpu = 0;
  std::optional<int> num_epochs;
  std::optional<int> num_batches;
  std::optional<int> warmup;
  std::optional<int> resnet_image_size;
  int num_workers = 0;
  bool quick = false;
  bool amp = false;
  std::string amp_dtype = "bf16";  // "bf16" or "fp16"
  bool channels_last = false;
  std::vector<std::string> tests;  // name prefixes; empty: every test
  bool list = false;
  bool help = false;
};

struct ParsedOptions {
  Options options;
  std::optional<std::string> error;  // a usage error: exit 2
};

ParsedOptions parse_options(const std::vector<std::string_view>& args);

std::string usage_text();

// The options with every default filled in for the device the tests run on.
struct RunConfig {
  bool cuda = false;
  int gpu = 0;
  int num_epochs = 0;
  int num_batches = 0;
  int warmup = 0;
  int num_workers = 0;
  bool amp = false;
  std::string amp_dtype;
  bool channels_last = false;
  int resnet_image_size = 0;

  std::int64_t iterations() const { return std::int64_t{num_epochs} * num_batches; }
};

RunConfig resolve(const Options& options, bool cuda);

}  // namespace gpuwatch::bench_torch
