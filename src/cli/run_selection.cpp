#include "cli/run_selection.h"

#include <fnmatch.h>

#include <fmt/format.h>

#include "cli/options.h"
#include "cli/run_source.h"
#include "core/job_id.h"

namespace gpuwatch::cli {

namespace {

// Calls each(store, run) for every run of every store, one store open at a
// time; a store that a recorder is still creating has no run yet.
template <typename Each>
void for_each_stored_run(const std::vector<std::filesystem::path>& paths, const Each& each) {
  for (const auto& path : paths) {
    std::unique_ptr<Store> store;
    try {
      store = Store::open(path, true);
    } catch (const EmptyStoreError&) {
      continue;
    }
    for (const RunInfo& run : store->list_runs()) each(*store, run);
  }
}

// What a group's row (and a job's) is made of: the four device metrics its
// columns summarize and the events (step annotations, the job's GPUs), not
// the other 30-odd columns nor the host's samples, so that a long run
// loads in a fraction of the memory.
LoadOptions row_load_options() {
  LoadOptions o;
  o.metrics = {DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes, DeviceMetric::PowerWatts,
               DeviceMetric::EnergyJoules};
  o.host_samples = false;
  return o;
}

}  // namespace

RunGroup load_run_group(const std::string& glob, const StoreList& stores) {
  std::vector<GroupRow> rows;
  for_each_stored_run(stores.paths(), [&](Store& store, const RunInfo& run) {
    if (fnmatch(glob.c_str(), run.name.c_str(), 0) != 0) return;
    // A run that did not complete is only named: its samples are not read.
    rows.push_back({run, run_completed(run) ? group_values(store.load(run, row_load_options())) : GroupValues{}});
  });
  if (rows.empty()) throw StoreError(fmt::format("no stored run has a name matching '{}'", glob));
  return build_completed_run_group(std::move(rows), fmt::format("named '{}'", glob));
}

JobReport load_job(const std::string& job_id, const StoreList& stores) {
  const auto paths = stores.paths();
  std::vector<JobRun> runs;
  for_each_stored_run(paths, [&](Store& store, const RunInfo& run) {
    if (job_id_matches(run.job, job_id)) runs.push_back(job_run(store.load(run, row_load_options())));
  });
  if (runs.empty()) {
    std::string where;
    for (const auto& p : paths) where += (where.empty() ? "" : ", ") + p.string();
    throw StoreError(fmt::format("no run of job '{}' in {} ({}); `gpuwatch runs --store FILE` lists a store's runs "
                                 "with their jobs",
                                 job_id, paths.size() == 1 ? "the store" : fmt::format("the {} stores", paths.size()),
                                 where));
  }
  return build_job_report(job_id, std::move(runs));
}

RunGroup load_run_group(std::span<const std::string> run_refs, const StoreList& stores) {
  std::vector<GroupRow> rows;
  for (const std::string& ref : run_refs) {
    const RunData data = load_run(ref, stores);
    rows.push_back({data.run, run_completed(data.run) ? group_values(data) : GroupValues{}});
  }
  return build_completed_run_group(std::move(rows), "given on the command line");
}

}  // namespace gpuwatch::cli
