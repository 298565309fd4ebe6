// Slow values (temperatures, clocks, P-state...) are read once a second on
// the sampler's slow thread and ride on the next tick's sample only, so at
// 0.2 s most rows have none. Rows written for people and scripts (`sample`,
// `export` jsonl/csv/json) repeat the device's last slow read on the rows
// between, with the read's age and a mark, so every row has a temperature and
// an importer can tell a repeated value from a read one.
#pragma once

#include <cstdint>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

// The metrics repeated: Slow-cadence ones. Costly ones (the energy counter,
// PCIe throughput, read every 30 s) are not: a repeated counter or rate would
// read as a new measurement.
constexpr bool repeated_between_slow_reads(DeviceMetric m) {
  return info(m).cadence == Cadence::Slow && m != DeviceMetric::SlowReadAgeSeconds;
}

// The name of the mark on a row whose slow values are repeated (jsonl, csv
// and json exports), and what an importer does with such a row: drops the
// repeated values and their age, so a run exported and imported again is the
// run it was.
inline constexpr std::string_view kSlowValuesCarriedField = "slow_values_carried";
void drop_carried_slow_values(DeviceValues& values);

class SlowCarry {
 public:
  // Fills in the slow values of the device's last slow read when `sample`
  // has none of its own (no slow value, no slow_read_age_seconds), setting
  // slow_read_age_seconds to their age at this row. Returns whether it did.
  // A row with values of its own becomes the last read; one with values but
  // no age (an imported file) stops the carrying, since its age is unknown.
  // Rows of one device must come in time order.
  bool fill(DeviceSample& sample);
  // Rows of the device before `first_read` (its first row with slow values
  // of its own and their age) get that read too, with a negative age: the
  // first tick comes before the first slow read, and a stored run's export
  // knows what comes next, so its first rows have a temperature like every
  // later one. Does nothing for a row without a usable age.
  void carry_back(const DeviceSample& first_read);

 private:
  struct LastRead {
    DeviceValues values;  // the repeated metrics only
    std::int64_t read_mono_ns = 0;
    bool usable = false;
  };
  LastRead& last_read(int device_index);
  // Makes `sample`'s own slow values (if any, or an age) the last read;
  // false when it has none.
  static bool take_own_read(const DeviceSample& sample, LastRead& last);
  std::vector<LastRead> by_device_;  // by device index
};

}  // namespace gpuwatch
