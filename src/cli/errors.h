// gpuwatch's own exit codes (README, "Exit codes") and the errors that pick
// them. `record` exits with its command's status instead, and 75/127 for
// its own reasons.
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace gpuwatch::cli {

inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
// As nvidia-smi's "couldn't communicate with the NVIDIA driver", so that a
// script that checks for 9 treats both tools alike.
inline constexpr int kExitNoGpu = 9;

// devices and sample when no backend found a GPU; the message says why.
class NoGpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A usage error naming the mistyped word, with the closest command or flag
// ("unknown command 'recrod'; did you mean 'record'?"), found by walking the
// arguments as CLI11 would; nullopt when no unknown command or option is
// found there (CLI11's own message then stands). `args` excludes argv[0].
std::optional<std::string> diagnose_usage(CLI::App& app, std::span<const std::string> args);

// Whether the command being run asked for JSON (--format json or jsonl,
// devices --json): its errors then go to stdout as JSON too.
bool wants_json(CLI::App& app);

}  // namespace gpuwatch::cli
