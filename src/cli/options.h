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

// The stores a reading command reads: --store given once, or more often (one
// file per node of a job), or a folder of them. Never written to but for
// rollups of a run read from a store given alone (run_source.cpp).
struct StoreList {
  StoreList(const std::string& flag);  // implicit: one --store value ("" = the default store)
  StoreList(std::vector<std::string> flags);  // implicit: --store given zero or more times
  std::vector<std::string> given;
  // The store files: one store given as a file is taken as it is (opening
  // it says what is wrong with it); else store/run_lookup.h's
  // expand_store_paths, which throws StoreError for a path that does not
  // exist or a folder with no *.db file. GPUWATCH_STORE naming a folder is
  // read as --store naming it.
  [[nodiscard]] std::vector<std::filesystem::path> paths() const;
  // Whether --store was given: a store it names must exist (a mistyped path
  // is not an empty store), where the default one may not exist yet.
  [[nodiscard]] bool named() const { return !given.empty(); }
};

// Refuses, before a command starts, a --output-dir that cannot be created
// or written by this user, with the path and the reason. Creates it.
void prepare_output_dir(const std::filesystem::path& dir);
// Adds --store PATH, repeatable, a file or a folder of *.db files.
CLI::Option* add_stores_option(CLI::App& cmd, std::vector<std::string>& stores);

}  // namespace gpuwatch::cli
