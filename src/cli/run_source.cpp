#include "cli/run_source.h"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/options.h"
#include "analysis/rollup_stats.h"
#include "store/stored_columns.h"
#include "record/run_status_window.h"
#include "store/rollups.h"

namespace gpuwatch::cli {

namespace {

bool looks_like_a_path(const std::string& ref) {
  const std::string ext = std::filesystem::path(ref).extension().string();
  return ref.find('/') != std::string::npos || ext == ".json" || ext == ".jsonl" || ext == ".csv";
}

struct StoredRun {
  std::unique_ptr<Store> store;
  RunInfo run;
};

// The store's run that RUN names, with a better message when RUN looked like
// a file that is not there.
StoredRun resolve_stored(const std::string& run_ref, const std::string& store_flag) {
  try {
    auto store = Store::open(store_path(store_flag), true);
    RunInfo run = store->resolve(run_ref);
    return {std::move(store), std::move(run)};
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
// (read-only file, another writer holding it) is read from its chunks.
void ensure_rollups(const StoredRun& stored, const std::string& store_flag) {
  const auto path = store_path(store_flag);
  if (stored.run.status == RunStatus::Recording || has_rollups(path, stored.run)) return;
  try {
    build_rollups(path, stored.run);
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
  for (const std::string& w : result.warnings) fmt::print(stderr, "gpuwatch: warning: {}: {}\n", file, w);
}

RunData load_run(const std::string& run_ref, const std::string& store_flag) {
  keep_freed_memory();
  if (is_file(run_ref)) {
    ImportResult result = import_file(run_ref);
    print_import_warnings(run_ref, result);
    return std::move(result.data);
  }
  StoredRun stored = resolve_stored(run_ref, store_flag);
  return stored.store->load(stored.run);
}

RunColumns open_run_columns(const std::string& run_ref, const std::string& store_flag) {
  RunColumns out;
  if (is_file(run_ref)) {
    out.imported = std::make_unique<RunData>(load_run(run_ref, store_flag));
    out.base = run_base(*out.imported);
    out.columns = std::make_unique<RunDataColumns>(*out.imported);
    return out;
  }
  StoredRun stored = resolve_stored(run_ref, store_flag);
  out.base = load_run_base(*stored.store, stored.run);
  out.columns = std::make_unique<StoredColumns>(store_path(store_flag), stored.run);
  return out;
}

RunReader::RunReader(const std::string& run_ref, const std::string& store_flag) {
  if (is_file(run_ref)) {
    imported_ = std::make_unique<RunData>(load_run(run_ref, store_flag));
    run_ = imported_->run;
    return;
  }
  StoredRun stored = resolve_stored(run_ref, store_flag);
  store_ = std::move(stored.store);
  run_ = std::move(stored.run);
}

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

RunReport report_run(const std::string& run_ref, const std::string& store_flag) {
  keep_freed_memory();
  if (is_file(run_ref)) return build_report(load_run(run_ref, store_flag));
  StoredRun stored = resolve_stored(run_ref, store_flag);
  ensure_rollups(stored, store_flag);
  const auto path = store_path(store_flag);
  return build_report(load_run_base(*stored.store, stored.run), StoredColumns(path, stored.run),
                      StoredRollups(path, stored.run));
}

}  // namespace gpuwatch::cli
