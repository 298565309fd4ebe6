// Flag parsing shared by several commands.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace gpuwatch::cli {

// "0,2,5-7" -> {0,2,5,6,7}. Throws CLI::ValidationError on bad input.
std::vector<int> parse_gpu_list(const std::string& text);

// Adds --gpus LIST, validated at parse time (bad lists are usage errors).
CLI::Option* add_gpus_option(CLI::App& cmd, std::string& gpus, const std::string& help);

// Adds --store PATH (default: $GPUWATCH_STORE or the XDG data home).
CLI::Option* add_store_option(CLI::App& cmd, std::string& store);
std::filesystem::path store_path(const std::string& flag_value);

}  // namespace gpuwatch::cli
