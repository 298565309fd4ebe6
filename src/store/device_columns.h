// A source of one device's samples, a few metrics at a time. Analysis that
// walks a long run (report over 35 h of 8 GPUs: 10 million samples) asks for
// what it needs device by device, so the run never sits in memory whole.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "store/store.h"

namespace gpuwatch {

class DeviceColumns {
 public:
  virtual ~DeviceColumns() = default;
  // Device `index`'s facts, timestamps and the columns of `metrics`; every
  // other column is left empty. An unknown index gives a series with no samples.
  // Safe to call from several threads at once.
  [[nodiscard]] virtual DeviceSeries load(int index, std::span<const DeviceMetric> metrics) const = 0;
};

// Columns copied from a RunData already in memory (small runs, imported files).
class RunDataColumns final : public DeviceColumns {
 public:
  explicit RunDataColumns(const RunData& data) : data_(data) {}
  [[nodiscard]] DeviceSeries load(int index, std::span<const DeviceMetric> metrics) const override;

 private:
  const RunData& data_;
};

// Columns read from the store file on demand, each load on a read-only
// connection of its own (opened when none is free, kept for the next load),
// so that loads from several threads run side by side: one connection
// serialises its users.
class StoredColumns final : public DeviceColumns {
 public:
  StoredColumns(std::filesystem::path store_path, RunInfo run)
      : store_path_(std::move(store_path)), run_(std::move(run)) {}
  [[nodiscard]] DeviceSeries load(int index, std::span<const DeviceMetric> metrics) const override;

 private:
  std::filesystem::path store_path_;
  RunInfo run_;
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<Store>> idle_;
};

// The run without device samples (devices' facts only), for use with StoredColumns.
RunData load_run_base(Store& store, const RunInfo& run);
// The same of a run already in memory (for use with RunDataColumns).
RunData run_base(const RunData& data);

}  // namespace gpuwatch
