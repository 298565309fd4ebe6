// Per-minute rollups in the run store (docs/store.md, "Per-minute rollups"):
// built from a finished run's chunks, one blob per device and metric in the
// `rollups` table, and read back for `report`. Each call uses connections of
// its own to the store file, so the recorder and readers need nothing else.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "core/rollup.h"
#include "store/store.h"

namespace gpuwatch {

// Builds and writes the rollups of `run` (by row id, else public id) unless
// it has them; opens the store for writing, which migrates it. Returns
// whether the run has them now: false for a run still recording, or one with
// a chunk that does not decode. Throws StoreError when the store cannot be
// written.
bool build_rollups(const std::filesystem::path& store_path, const RunInfo& run);

// Builds them again even when the run has them, so that a run finished by an
// older gpuwatch gains what its rollups lack (the detector minutes):
// bench/rebuild_rollups, to measure `report` on existing stores.
bool rebuild_rollups(const std::filesystem::path& store_path, const RunInfo& run);

// The same for the writer itself, after it finished or imported a run: a
// failure costs only speed (readers fall back to the chunks), so none is thrown.
void build_rollups_quietly(const std::filesystem::path& store_path, std::int64_t run_row) noexcept;

// Whether the run has rollups; false when the store cannot tell (an older
// schema, a file that does not open).
bool has_rollups(const std::filesystem::path& store_path, const RunInfo& run);

// A run's rollups, read one device at a time on a read-only connection per
// call. A device whose blobs do not decode has none.
class StoredRollups final : public RollupSource {
 public:
  StoredRollups(std::filesystem::path store_path, RunInfo run)
      : store_path_(std::move(store_path)), run_(std::move(run)) {}
  [[nodiscard]] std::optional<DeviceRollups> rollups(int device_index) const override;
  // A minute at a time: each column's minutes merged as they are decoded.
  [[nodiscard]] std::optional<DeviceRollupTotals> totals(int device_index) const override;

 private:
  std::filesystem::path store_path_;
  RunInfo run_;
};

}  // namespace gpuwatch
