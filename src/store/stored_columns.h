// A run's device columns read from the store file on demand (the interface
// is core/device_columns.h's, shared with runs in memory).
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "core/device_columns.h"
#include "store/store.h"

namespace gpuwatch {

// Columns read from the store file on demand, each load on a read-only
// connection of its own (opened when none is free, kept for the next load),
// so that loads from several threads run side by side: one connection
// serialises its users.
class StoredColumns final : public DeviceColumns {
 public:
  StoredColumns(std::filesystem::path store_path, RunInfo run)
      : store_path_(std::move(store_path)), run_(std::move(run)) {}
  [[nodiscard]] DeviceSeries load(int index, std::span<const DeviceMetric> metrics, WallClock wall) const override;
  [[nodiscard]] DeviceSeries load_window(int index, std::span<const DeviceMetric> metrics, std::int64_t since_mono_ns,
                                         std::int64_t until_mono_ns) const override;

 private:
  [[nodiscard]] DeviceSeries load_with(const LoadOptions& options) const;

  std::filesystem::path store_path_;
  RunInfo run_;
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<Store>> idle_;
};

// The run without device samples (devices' facts only), for use with
// StoredColumns; run_base (core/device_columns.h) does the same in memory.
// `report` and `status` leave the host's per-core columns out (host_cores).
RunData load_run_base(Store& store, const RunInfo& run, bool host_cores = true);

}  // namespace gpuwatch
