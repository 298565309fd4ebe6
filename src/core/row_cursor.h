// A run's samples as rows in time order, whichever way the run is held: in
// memory (render/seed_files.h: rows_in_memory) or read one chunk per series
// at a time from the store (store/sample_cursor.h), so that `export` writes a
// run of any length in a memory that does not grow with it (issue 25).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

#include "core/run.h"

namespace gpuwatch {

// Which series a cursor yields.
struct RowSelection {
  std::optional<int> device;  // only this GPU's rows (by index)
  bool devices = true;        // device rows
  bool host = true;           // host rows
};

struct RunRow {
  enum class Kind { Device, Host, Event };
  Kind kind = Kind::Device;
  std::size_t device = 0;  // Device: its position in base().devices
  DeviceSample device_sample;
  HostSample host_sample;
  Event event;  // Event: noted while reading (an unreadable chunk), not in base().events
};

class RowCursor {
 public:
  virtual ~RowCursor() = default;
  // The run without samples: its facts, every device's facts (by index),
  // processes and events.
  [[nodiscard]] virtual const RunData& base() const = 0;
  // The next row, false at the end. Device rows come by monotonic time, a
  // tie by device position, as Store::load's columns sorted by time would;
  // a host row comes before the device rows of its time or later. Each
  // series' rows must be in time order (the store keeps them so).
  virtual bool next(RunRow& row) = 0;
  // The device's first row with a slow read of its own (a
  // slow_read_age_seconds value), for SlowCarry::carry_back; nullopt when it
  // has none.
  virtual std::optional<DeviceSample> first_slow_read(std::size_t device) = 0;
};

// Opens a cursor over the selected rows of one run; a writer that needs
// several passes (tensorboard: one series at a time) opens several, one
// after another.
using OpenRows = std::function<std::unique_ptr<RowCursor>(const RowSelection&)>;

}  // namespace gpuwatch
