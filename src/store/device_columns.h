// A source of one device's samples, a few metrics at a time. Analysis that
// walks a long run (report over 35 h of 8 GPUs: 10 million samples) asks for
// what it needs device by device, so the run never sits in memory whole.
#pragma once

#include <filesystem>
#include <span>

#include "store/store.h"

namespace gpuwatch {

class DeviceColumns {
 public:
  virtual ~DeviceColumns() = default;
  // Device `index`'s facts, timestamps and the columns of `metrics`; every
  // other column is left empty. An unknown index gives a series with no samples.
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

// Columns read from the store on demand. Each load opens its own read-only
// connection, so several devices can be read at once from several threads
// (one connection serialises its users).
class StoredColumns final : public DeviceColumns {
 public:
  StoredColumns(std::filesystem::path store_path, RunInfo run)
      : store_path_(std::move(store_path)), run_(std::move(run)) {}
  [[nodiscard]] DeviceSeries load(int index, std::span<const DeviceMetric> metrics) const override;

 private:
  std::filesystem::path store_path_;
  RunInfo run_;
};

// The run without device samples (devices' facts only), for use with StoredColumns.
RunData load_run_base(Store& store, const RunInfo& run);

}  // namespace gpuwatch
