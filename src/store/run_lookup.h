// RUN looked up across several stores (report, compare and status with
// --store given more than once, or a folder of stores): the rules of
// Store::resolve, over the runs every store lists.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/run.h"

namespace gpuwatch {

// The store files that --store values name: a file as it is, a folder as
// every *.db file in it, in name order; the same file named twice counts
// once. With none given, `fallback` (the default store). Throws StoreError
// for a path that does not exist and for a folder with no *.db file.
std::vector<std::filesystem::path> expand_store_paths(std::span<const std::string> given,
                                                      const std::filesystem::path& fallback);

struct StoreRuns {
  std::string store;           // its path, for messages
  std::vector<RunInfo> runs;   // as Store::list_runs gives them
};

struct RunFound {
  std::size_t store = 0;  // index into the stores given
  RunInfo run;
};

// In Store::resolve's order: an exact id; "last", the latest run of all
// stores; a run name, the latest run of that name where one store has it
// and an error listing each store's candidate where several do; a unique id
// prefix across all stores. Throws StoreError (with the candidates where
// there are several) when nothing or more than one run matches.
RunFound resolve_across(std::span<const StoreRuns> stores, const std::string& ref);

}  // namespace gpuwatch
