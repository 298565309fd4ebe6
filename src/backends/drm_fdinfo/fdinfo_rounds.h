// One /proc scan per slow round, shared by every DRM card of every backend
// (the registry hands one to amdgpu and Intel alike). read_slow() is called
// once per card per round; scanning /proc each time would multiply the cost
// of the scan by the number of GPUs and measure each card's processes over a
// different interval. Backends are told nothing about rounds, so a round is
// inferred: a card that asks again has started the next one, whatever the
// order the cards are read in, and whichever subset of them is read.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "backends/drm_fdinfo/fdinfo_scan.h"

namespace gpuwatch {

class DrmScanPerRound {
 public:
  explicit DrmScanPerRound(std::filesystem::path procfs_root) : scanner_(std::move(procfs_root)) {}

  // This round's scan for the card at pci_bus_id: a fresh one when the card
  // has been served from the current scan already (or there is none yet).
  // Thread-safe.
  std::shared_ptr<const DrmScan> for_card(std::string_view pci_bus_id, Timestamp time) {
    const std::lock_guard lock(mutex_);
    if (!current_ || std::find(served_.begin(), served_.end(), pci_bus_id) != served_.end()) {
      current_ = std::make_shared<const DrmScan>(scanner_.scan(time));
      served_.clear();
      ++scans_;
    }
    served_.emplace_back(pci_bus_id);
    return current_;
  }

  // How many times /proc has been scanned.
  [[nodiscard]] std::uint64_t scans() const {
    const std::lock_guard lock(mutex_);
    return scans_;
  }

 private:
  mutable std::mutex mutex_;
  DrmFdinfoScanner scanner_;
  std::shared_ptr<const DrmScan> current_;
  std::vector<std::string> served_;  // the cards read from current_ already (a handful)
  std::uint64_t scans_ = 0;
};

}  // namespace gpuwatch
