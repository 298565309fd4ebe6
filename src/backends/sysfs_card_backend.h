// What every backend of DRM cards read through sysfs (amdgpu, Intel i915 and
// xe) shares, so that each vendor keeps only its own files and metrics: the
// cards it found, never reading a lost card again, telling a vanished GPU
// from one sensor's hiccup, and the fdinfo scan of each slow round, which
// one scanner does for the cards of every vendor (fdinfo_rounds.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/drm_fdinfo/fdinfo_rounds.h"

namespace gpuwatch {

// One card; a vendor derives its own with the files it reads.
struct SysfsCard {
  SysfsCard() = default;
  SysfsCard(const SysfsCard&) = delete;
  SysfsCard& operator=(const SysfsCard&) = delete;
  virtual ~SysfsCard() = default;

  DeviceInfo info;
  // <root>/class/drm/cardN/device: gone once the GPU is (unplugged, unbound).
  std::string device_path;
  // One buffer per reading thread: read_fast runs on the sampling thread,
  // read_slow on the slow thread, possibly at the same time.
  std::string fast_buf;
  std::string slow_buf;
  std::atomic<bool> lost{false};
};

class SysfsCardBackend : public GpuBackend {
 public:
  [[nodiscard]] std::vector<DeviceInfo> devices() const final;
  ReadStatus read_fast(std::size_t local_index, DeviceValues& out) final;
  ReadStatus read_slow(std::size_t local_index, const SlowReadPlan& plan, DeviceValues& out,
                       std::vector<GpuProcess>& processes) final;
  [[nodiscard]] std::size_t hidden_processes() const final { return hidden_processes_.load(std::memory_order_relaxed); }

 protected:
  // drm_scans: the one scanner of the whole machine; null for one of its own.
  SysfsCardBackend(const std::filesystem::path& procfs_root, std::shared_ptr<DrmScanPerRound> drm_scans);

  // A round of a vendor's reads of one card into `values`. Returns false
  // when some read failed: then the card is checked for having gone.
  virtual bool read_fast_values(SysfsCard& card, DeviceValues& values) = 0;
  virtual bool read_slow_values(SysfsCard& card, const SlowReadPlan& plan, DeviceValues& values) = 0;
  // What the round's fdinfo scan says about the card: the processes on it
  // when `processes` is not null (device_index is set by the caller), and
  // whatever else the vendor measures from its clients, into the slow
  // round's `values` (the engine classes) or kept for the fast thread.
  virtual void read_scan(SysfsCard& card, const DrmScan& scan, DeviceValues& values,
                         std::vector<GpuProcess>* processes) = 0;
  // The vendor measures the card itself from the scan (Intel's
  // utilization), so it needs one even when no process list is wanted.
  [[nodiscard]] virtual bool measures_from_scan() const = 0;

  // Numbers the card (its index here) and keeps it.
  void add_card(std::unique_ptr<SysfsCard> card);
  [[nodiscard]] bool has_cards() const { return !cards_.empty(); }
  [[nodiscard]] const std::filesystem::path& procfs_root() const { return procfs_root_; }

 private:
  // The card to read, or null when there is none at the index or it is lost.
  SysfsCard* readable(std::size_t local_index);
  // The round's values go out unless the GPU turned out to be gone: a lost
  // GPU's last round adds nothing.
  static ReadStatus finish(SysfsCard& card, bool reads_ok, const DeviceValues& values, DeviceValues& out);

  std::vector<std::unique_ptr<SysfsCard>> cards_;
  std::filesystem::path procfs_root_;
  std::shared_ptr<DrmScanPerRound> drm_scans_;
  std::atomic<std::size_t> hidden_processes_{0};  // of the last scan
};

}  // namespace gpuwatch
