// One /proc scan per slow round, shared by all the devices of a backend.
// read_slow() is called once per device per round; scanning /proc each time
// would multiply the cost of the scan by the number of GPUs and measure each
// device's processes over a different interval. The backend is told nothing
// about rounds, so a round is inferred: a device that asks again has started
// the next one, whatever the order the devices are read in, and whichever
// subset of them is read.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/drm_fdinfo/fdinfo_scan.h"

namespace gpuwatch {

class DrmScanPerRound {
 public:
  explicit DrmScanPerRound(std::filesystem::path procfs_root) : scanner_(std::move(procfs_root)) {}

  // This round's scan for the device: a fresh one when the device has been
  // served from the current scan already (or there is none yet). Thread-safe.
  std::shared_ptr<const DrmScan> for_device(std::size_t device_index, Timestamp time) {
    const std::lock_guard lock(mutex_);
    if (served_.size() <= device_index) served_.resize(device_index + 1, false);
    if (!current_ || served_[device_index]) {
      current_ = std::make_shared<const DrmScan>(scanner_.scan(time));
      served_.assign(served_.size(), false);
    }
    served_[device_index] = true;
    return current_;
  }

 private:
  std::mutex mutex_;
  DrmFdinfoScanner scanner_;
  std::shared_ptr<const DrmScan> current_;
  std::vector<bool> served_;  // by device index: read from current_ already
};

}  // namespace gpuwatch
