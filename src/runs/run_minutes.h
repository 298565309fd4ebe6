// Stored runs read minute by minute: the rollups of chosen columns (a
// dashboard chart of a long span, `compare` of long runs), and a run folded
// for compare_minutes() (analysis/compare_minutes.h) from its GPUs' rollups
// and its host samples read a few hours at a time. Memory stays within a
// column's rollups and a span of host samples, whatever the run's length.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <vector>

#include "analysis/compare_minutes.h"
#include "core/rollup.h"
#include "store/sqlite_util.h"
#include "store/store.h"

namespace gpuwatch {

// About how many device-samples `run` holds: its length over its interval,
// times its GPUs.
double estimated_device_samples(const RunInfo& run, std::size_t devices);

// Compare reads runs that hold more than this many device-samples together
// from their rollups (when they all have them); shorter ones are read whole
// (a whole run costs about 300 bytes a sample while compared: 1 M, 300 MB).
inline constexpr double kCompareMinutesAboveDeviceSamples = 1e6;

// A finished run's rollups, a column at a time, on one read-only connection.
class RollupColumns {
 public:
  // Throws StoreError when the store does not open.
  RollupColumns(const std::filesystem::path& store_path, const RunInfo& run);
  // Whether the run has rollups in this build's format.
  [[nodiscard]] bool available() const { return available_; }
  // The GPU's minutes of `metric`: empty when it has none, nullopt when its
  // blob does not decode (the chunks are then the source).
  [[nodiscard]] std::optional<std::vector<ColumnRollup>> column(int device_index, DeviceMetric metric) const;

 private:
  sql::Db db_;
  std::int64_t run_row_ = 0;
  bool available_ = false;
};

struct StoredRunMinutes {
  RunData facts;  // the run, its devices' facts and its events; no samples
  RunMinutes minutes;
};

// nullopt when the run has no rollups (recording, or never built) or one
// does not decode: compare then reads samples.
std::optional<StoredRunMinutes> read_run_minutes(Store& store, const std::filesystem::path& store_path,
                                                 const RunInfo& run);

}  // namespace gpuwatch
