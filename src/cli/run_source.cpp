#include "cli/run_source.h"

#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/options.h"

namespace gpuwatch::cli {

namespace {

bool looks_like_a_path(const std::string& ref) {
  const std::string ext = std::filesystem::path(ref).extension().string();
  return ref.find('/') != std::string::npos || ext == ".json" || ext == ".jsonl" || ext == ".csv";
}

}  // namespace

void print_import_warnings(const std::string& file, const ImportResult& result) {
  for (const std::string& w : result.warnings) fmt::print(stderr, "gpuwatch: warning: {}: {}\n", file, w);
}

RunData load_run(const std::string& run_ref, const std::string& store_flag) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(run_ref, ec)) {
    ImportResult result = import_file(run_ref);
    print_import_warnings(run_ref, result);
    return std::move(result.data);
  }
  try {
    auto store = Store::open(store_path(store_flag), true);
    return store->load(store->resolve(run_ref));
  } catch (const StoreError& e) {
    if (!looks_like_a_path(run_ref)) throw;
    throw StoreError(fmt::format("no file {} (and no stored run of that name: {})", run_ref, e.what()));
  }
}

}  // namespace gpuwatch::cli
