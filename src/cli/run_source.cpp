#include "cli/run_source.h"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/options.h"
#include "cli/run_status_source.h"
#include "analysis/rollup_stats.h"
#include "store/sample_cursor.h"
#include "store/stored_columns.h"
#include "runs/run_status_window.h"
#include "render/seed_files.h"
#include "runs/stored_plot.h"
#include "render/terminal_text.h"
#include "store/rollups.h"
#include "store/run_lookup.h"

namespace gpuwatch::cli {

namespace {

bool looks_like_a_path(const std::string& ref) {
  const std::string ext = std::filesystem::path(ref).extension().string();
  return ref.find('/') != std::string::npos || ext == ".json" || ext == ".jsonl" || ext == ".csv";
}

struct StoredRun {
  std::unique_ptr<Store> store;
  RunInfo run;
  std::filesystem::path path;  // of `store`
  bool alone = true;           // the only store given
};

// RUN across several stores: each is opened read-only and listed (a store
// file that a recorder is creating lists no run).
StoredRun resolve_across_stores(const std::string& run_ref, const std::vector<std::filesystem::path>& paths) {
  std::vector<StoreRuns> lists;
  std::vector<std::unique_ptr<Store>> opened;
  for (const auto& path : paths) {
    lists.push_back({path.string(), {}});
    try {
      opened.push_back(Store::open(path, true));
      lists.back().runs = opened.back()->list_runs();
    } catch (const EmptyStoreError&) {
      opened.emplace_back();
    }
  }
  RunFound found = resolve_across(lists, run_ref);
  return {std::move(opened[found.store]), std::move(found.run), paths[found.store], false};
}

// The run that RUN names in the stores, with a better message when RUN
// looked like a file that is not there.
StoredRun resolve_stored(const std::string& run_ref, const StoreList& stores) {
  try {
    const auto paths = stores.paths();
    if (paths.size() > 1) return resolve_across_stores(run_ref, paths);
    auto store = Store::open(paths.front(), true);
    RunInfo run = store->resolve(run_ref);
    return {std::move(store), std::move(run), paths.front(), true};
  } catch (const StoreError& e) {
    std::error_code ec;
    // /dev/zero, a FIFO, a directory: refused with the reason (without
    // reading or opening it), unless a stored run had that name.
    if (std::filesystem::exists(run_ref, ec)) import_file(run_ref);
    if (!looks_like_a_path(run_ref)) throw;
    throw StoreError(fmt::format("no file {} (and no stored run of that name: {})", run_ref, e.what()));
  }
}

// Reading a long run allocates and frees columns of ~10 MB one after the
// other. By default glibc hands each back to the kernel and the next one is
// faulted in again, page by page: a quarter of `report`'s time over 35 hours
// of 8 GPUs. Freed memory is kept for reuse instead; the peak is unchanged.
void keep_freed_memory() {
  static const bool once = [] {
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    return true;
  }();
  (void)once;
}

// A finished run recorded before rollups existed, or interrupted, has none:
// the first report builds them (once; it costs about a report's time read from
// the chunks), so that later ones are fast. A store that cannot be written
// (read-only file, another writer holding it) is read from its chunks. Of
// several stores (one per node, maybe on a shared file system) none is
// written: the run is read from its chunks.
void ensure_rollups(const StoredRun& stored) {
  if (!stored.alone) return;
  if (stored.run.status == RunStatus::Recording || has_rollups(stored.path, stored.run)) return;
  try {
    build_rollups(stored.path, stored.run);
  } catch (const StoreError&) {
    // Rollups only make reading faster; the chunks are the data.
  }
}

bool is_file(const std::string& run_ref) {
  std::error_code ec;
  return std::filesystem::is_regular_file(run_ref, ec);
}

}  // namespace

void print_import_warnings(const std::string& file, const ImportResult& result) {
  for (const std::string& w : result.warnings) fmt::print(stderr, "gpuwatch: warning: {}: {}\n", terminal_safe(file), terminal_safe(w));
}

RunData load_run(const std::string& run_ref, const StoreList& stores) {
  keep_freed_memory();
  if (is_file(run_ref)) {
    ImportResult result = import_file(run_ref);
    print_import_warnings(run_ref, result);
    return std::move(result.data);
  }
  StoredRun stored = resolve_stored(run_ref, stores);
  return stored.store->load(stored.run);
}

RunColumns open_run_columns(const std::string& run_ref, const StoreList& stores) {
  RunColumns out;
  if (is_file(run_ref)) {
    out.imported = std::make_unique<RunData>(load_run(run_ref, stores));
    out.base = run_base(*out.imported);
    out.columns = std::make_unique<RunDataColumns>(*out.imported);
    return out;
  }
  StoredRun stored = resolve_stored(run_ref, stores);
  out.base = plot::load_plot_base(*stored.store, stored.run);  // `plot` reads no host samples
  out.columns = std::make_unique<StoredColumns>(stored.path, stored.run);
  out.store_path = stored.path;
  return out;
}

RunRows open_run_rows(const std::string& run_ref, const StoreList& stores) {
  RunRows out;
  if (is_file(run_ref)) {
    out.imported = std::make_unique<RunData>(load_run(run_ref, stores));
    out.open = rows_in_memory(*out.imported);
    return out;
  }
  StoredRun stored = resolve_stored(run_ref, stores);
  out.store = std::move(stored.store);
  out.open = stored_rows(*out.store, std::move(stored.run));
  return out;
}

RunReader::RunReader(const std::string& run_ref, const StoreList& stores) {
  if (is_file(run_ref)) {
    imported_ = std::make_unique<RunData>(load_run(run_ref, stores));
    run_ = imported_->run;
    return;
  }
  StoredRun stored = resolve_stored(run_ref, stores);
  store_ = std::move(stored.store);
  run_ = std::move(stored.run);
  columns_ = std::make_unique<StoredColumns>(stored.path, run_);
  rollups_ = std::make_unique<StoredRollups>(stored.path, run_);
}

RunSources RunReader::sources() const { return {columns_.get(), rollups_.get()}; }

RunReader::RunReader(std::unique_ptr<Store> store, RunInfo run) : store_(std::move(store)), run_(std::move(run)) {}

RunReader::~RunReader() = default;

std::int64_t RunReader::end_mono_ns() const {
  std::int64_t end = run_.start_mono_ns;
  if (imported_) {
    for (const DeviceSeries& d : imported_->devices) {
      if (!d.mono_ns.empty()) end = std::max(end, d.mono_ns.back());
    }
    if (!imported_->host.mono_ns.empty()) end = std::max(end, imported_->host.mono_ns.back());
    return end;
  }
  return stored_run_end_mono_ns(run_);
}

RunData RunReader::read(const LoadOptions& options) const {
  if (store_) return store_->load(run_, options);
  RunData data = *imported_;
  if (options.since_mono_ns) drop_samples_before(data, *options.since_mono_ns);
  if (options.until_mono_ns) drop_samples_after(data, *options.until_mono_ns);
  return data;
}

std::optional<StoredRunMinutes> load_run_minutes(const std::string& run_ref, const StoreList& stores) {
  if (is_file(run_ref)) return std::nullopt;
  StoredRun stored = resolve_stored(run_ref, stores);
  ensure_rollups(stored);
  return read_run_minutes(*stored.store, stored.path, stored.run);
}

namespace {

void set_verdict(RunReport& report, std::vector<Advisory> advisories) {
  report.verdict = verdict_word(advisories);
  report.advisories = std::move(advisories);
}

// A long finished run's verdict from its report, as `status` judges it.
void judge_from_columns(RunReport& report, const StoredRun& stored, const RunData& base, const DeviceColumns& columns,
                        const AdvisorChoice& advisor) {
  const RunRead read = [&stored](const LoadOptions& o) { return stored.store->load(stored.run, o); };
  set_verdict(report, column_run_verdict(base, report, read, columns, judging_config(read, advisor), stored_run_end_mono_ns(stored.run)).advisories);
}

}  // namespace

RunReport report_run(const std::string& run_ref, const StoreList& stores, const AdvisorChoice& advisor) {
  keep_freed_memory();
  RunReport report;
  if (is_file(run_ref)) {
    report = build_report(load_run(run_ref, stores));
  } else {
    StoredRun stored = resolve_stored(run_ref, stores);
    ensure_rollups(stored);
    const RunData base = load_run_base(*stored.store, stored.run, false);
    const StoredColumns columns(stored.path, stored.run);
    report = build_report(base, columns, StoredRollups(stored.path, stored.run));
    if (stored.run.status != RunStatus::Recording && judged_from_columns(base, stored_run_end_mono_ns(stored.run))) {
      judge_from_columns(report, stored, base, columns, advisor);
      return report;
    }
  }
  // The verdict `status` gives, from the same function: one per run.
  set_verdict(report, run_status(RunReader(run_ref, stores), advisor, std::nullopt, false).advisories);
  return report;
}

}  // namespace gpuwatch::cli
