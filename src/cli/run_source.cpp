#include "cli/run_source.h"

#include <filesystem>

#include "cli/options.h"
#include "store/device_columns.h"

namespace gpuwatch::cli {

RunData load_run(const std::string& run_ref, const std::string& store_flag) {
  auto store = Store::open(store_path(store_flag), true);
  return store->load(store->resolve(run_ref));
}

RunReport report_run(const std::string& run_ref, const std::string& store_flag) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(run_ref, ec)) return build_report(load_run(run_ref, store_flag));
  auto store = Store::open(store_path(store_flag), true);
  const RunInfo run = store->resolve(run_ref);
  return build_report(load_run_base(*store, run), StoredColumns(*store, run));
}

}  // namespace gpuwatch::cli
