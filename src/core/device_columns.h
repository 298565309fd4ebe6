// A source of one device's samples, a few metrics at a time. Analysis that
// walks a long run (report over 35 h of 8 GPUs: 10 million samples) asks for
// what it needs device by device, so the run never sits in memory whole.
// The store's columns (store/stored_columns.h) read the file on demand.
#pragma once

#include <span>

#include "core/run.h"

namespace gpuwatch {

// Whether a load fills DeviceSeries::wall_ns. The report works on the
// monotonic clock alone, and at 10 M samples the wall clock is 80 MB.
enum class WallClock : bool { Skip, Load };

class DeviceColumns {
 public:
  virtual ~DeviceColumns() = default;
  // Device `index`'s facts, timestamps and the columns of `metrics`; every
  // other column is left empty. An unknown index gives a series with no samples.
  // Safe to call from several threads at once.
  [[nodiscard]] virtual DeviceSeries load(int index, std::span<const DeviceMetric> metrics, WallClock wall) const = 0;
  // The same over [since_mono_ns, until_mono_ns) only, without the wall
  // clock: what a detector flagged in a long run's rollups. This default
  // loads the whole column and cuts it; the store reads only the window.
  [[nodiscard]] virtual DeviceSeries load_window(int index, std::span<const DeviceMetric> metrics,
                                                 std::int64_t since_mono_ns, std::int64_t until_mono_ns) const;
};

// Columns copied from a RunData already in memory (small runs, imported files).
class RunDataColumns final : public DeviceColumns {
 public:
  explicit RunDataColumns(const RunData& data) : data_(data) {}
  [[nodiscard]] DeviceSeries load(int index, std::span<const DeviceMetric> metrics, WallClock wall) const override;

 private:
  const RunData& data_;
};

// The run without device samples (devices' facts only) of a run already in
// memory, for use with RunDataColumns; load_run_base reads it from the store.
RunData run_base(const RunData& data);

}  // namespace gpuwatch
