// What a RUN argument names. Every command that reads a run goes through here,
// so they all accept the same things: a stored run (id, unique id prefix, run
// name, "last") or a file that `import` understands.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "analysis/run_report.h"
#include "cli/advisor_options.h"
#include "cli/options.h"
#include "import/import.h"
#include "core/device_columns.h"
#include "core/row_cursor.h"
#include "runs/run_minutes.h"
#include "runs/run_status_window.h"
#include "store/store.h"

namespace gpuwatch::cli {

// stores: the --store values (none: the default store); with several, RUN
// is looked up across them (store/run_lookup.h). Throws StoreError (or an
// import error) with a message fit for the user.
// Help text for a RUN argument.
inline constexpr const char* kRunHelp = "Run id, unique id prefix, run name, 'last', or a file to import";

// When run_ref names a regular file, it is imported in memory (not stored)
// and its warnings are printed on stderr.
RunData load_run(const std::string& run_ref, const StoreList& stores);

// The report of RUN with its verdict (the one `status` gives). A stored run
// is read one GPU and a few metrics at a time, so that a 35-hour recording
// does not have to fit in memory; a long finished one is judged from that
// same report (runs/run_status_window.h), never read whole.
RunReport report_run(const std::string& run_ref, const StoreList& stores, const AdvisorChoice& advisor);

// RUN without its device samples, and where they come from: a stored run's
// GPUs are read on demand, one at a time (on read-only connections of their
// own, so that several may be read at once); an imported file's are in memory.
struct RunColumns {
  std::unique_ptr<RunData> imported;  // the file's samples, behind `columns`
  RunData base;
  std::unique_ptr<DeviceColumns> columns;
  std::filesystem::path store_path;  // a stored run's store (its rollups); empty for a file
};
RunColumns open_run_columns(const std::string& run_ref, const StoreList& stores);

// RUN as rows in time order (core/row_cursor.h), for `export`: a stored run
// read a chunk per series at a time (store/sample_cursor.h), so that a run of
// any length streams out in a bounded memory; a file imported into memory.
struct RunRows {
  std::unique_ptr<Store> store;        // behind `open`
  std::unique_ptr<RunData> imported;   // behind `open`
  OpenRows open;
};
RunRows open_run_rows(const std::string& run_ref, const StoreList& stores);

// RUN read one span at a time: a stored run reads only the chunks that
// cover the span (`status` polls the last minute of a 35-hour run); a file
// is imported once and cut in memory.
class RunReader {
 public:
  RunReader(const std::string& run_ref, const StoreList& stores);
  // A run already found in an open store.
  RunReader(std::unique_ptr<Store> store, RunInfo run);
  ~RunReader();
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;

  [[nodiscard]] const RunInfo& run() const { return run_; }
  [[nodiscard]] bool stored() const { return store_ != nullptr; }
  // Where the data ends on the run's clock: its last sample, or for a
  // stored run, its end or the recorder's last commit.
  [[nodiscard]] std::int64_t end_mono_ns() const;
  // options.since_mono_ns / until_mono_ns / metrics / host apply to files too.
  [[nodiscard]] RunData read(const LoadOptions& options) const;
  // The store's own column and rollup readers for a run found by its
  // store's path (none for a file, or a store opened by the caller).
  [[nodiscard]] RunSources sources() const;

 private:
  std::unique_ptr<Store> store_;
  std::unique_ptr<RunData> imported_;
  RunInfo run_;
  std::unique_ptr<DeviceColumns> columns_;
  std::unique_ptr<RollupSource> rollups_;
};

// A stored RUN folded minute by minute for compare (runs/run_minutes.h),
// its rollups built first as `report` builds them; nullopt for a file, a run
// still recording and a run whose rollups do not decode.
std::optional<StoredRunMinutes> load_run_minutes(const std::string& run_ref, const StoreList& stores);

// "gpuwatch: warning: FILE: ..." on stderr for each of the import's warnings.
void print_import_warnings(const std::string& file, const ImportResult& result);

}  // namespace gpuwatch::cli
