#include "cli/run_source.h"

#include "cli/options.h"

namespace gpuwatch::cli {

RunData load_run(const std::string& run_ref, const std::string& store_flag) {
  auto store = Store::open(store_path(store_flag), true);
  return store->load(store->resolve(run_ref));
}

}  // namespace gpuwatch::cli
