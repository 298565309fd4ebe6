#include "cli/run_selection.h"

#include <fnmatch.h>

#include <fmt/format.h>

#include "cli/options.h"
#include "cli/run_source.h"

namespace gpuwatch::cli {

RunGroup load_run_group(const std::string& glob, const StoreList& stores) {
  std::vector<GroupRow> rows;
  for (const auto& path : stores.paths()) {
    std::unique_ptr<Store> store;
    try {
      store = Store::open(path, true);
    } catch (const EmptyStoreError&) {
      continue;  // a recorder is creating it: no run yet
    }
    for (const RunInfo& run : store->list_runs()) {
      if (fnmatch(glob.c_str(), run.name.c_str(), 0) != 0) continue;
      rows.push_back({run, group_values(store->load(run))});
    }
  }
  if (rows.empty()) throw StoreError(fmt::format("no stored run has a name matching '{}'", glob));
  return build_run_group(std::move(rows), fmt::format("named '{}'", glob));
}

RunGroup load_run_group(std::span<const std::string> run_refs, const StoreList& stores) {
  std::vector<GroupRow> rows;
  for (const std::string& ref : run_refs) {
    const RunData data = load_run(ref, stores);
    rows.push_back({data.run, group_values(data)});
  }
  return build_run_group(std::move(rows), "given on the command line");
}

}  // namespace gpuwatch::cli
