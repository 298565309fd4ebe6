#include "backends/sysfs_card_backend.h"

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace gpuwatch {

namespace {

// Asked only after a read failed, so it costs nothing while all is well.
bool gone(const SysfsCard& card) { return ::access(card.device_path.c_str(), F_OK) != 0 && errno == ENOENT; }

}  // namespace

SysfsCardBackend::SysfsCardBackend(const std::filesystem::path& procfs_root,
                                   std::shared_ptr<DrmScanPerRound> drm_scans)
    : procfs_root_(procfs_root),
      drm_scans_(drm_scans ? std::move(drm_scans) : std::make_shared<DrmScanPerRound>(procfs_root)) {}

std::vector<DeviceInfo> SysfsCardBackend::devices() const {
  std::vector<DeviceInfo> out;
  out.reserve(cards_.size());
  for (const auto& card : cards_) out.push_back(card->info);
  return out;
}

void SysfsCardBackend::add_card(std::unique_ptr<SysfsCard> card) {
  card->info.index = static_cast<int>(cards_.size());
  cards_.push_back(std::move(card));
}

SysfsCard* SysfsCardBackend::readable(std::size_t local_index) {
  if (local_index >= cards_.size()) return nullptr;
  SysfsCard* card = cards_[local_index].get();
  return card->lost.load(std::memory_order_relaxed) ? nullptr : card;
}

ReadStatus SysfsCardBackend::finish(SysfsCard& card, bool reads_ok, const DeviceValues& values, DeviceValues& out) {
  if (!reads_ok && gone(card)) {
    card.lost.store(true, std::memory_order_relaxed);
    return ReadStatus::Lost;
  }
  out.merge_from(values);
  return ReadStatus::Ok;
}

ReadStatus SysfsCardBackend::read_fast(std::size_t local_index, DeviceValues& out) {
  SysfsCard* card = readable(local_index);
  if (card == nullptr) return ReadStatus::Lost;
  DeviceValues values;
  const bool ok = read_fast_values(*card, values);
  return finish(*card, ok, values, out);
}

ReadStatus SysfsCardBackend::read_slow(std::size_t local_index, const SlowReadPlan& plan, DeviceValues& out,
                                       std::vector<GpuProcess>& processes) {
  SysfsCard* card = readable(local_index);
  if (card == nullptr) return ReadStatus::Lost;
  DeviceValues values;
  const bool ok = read_slow_values(*card, plan, values);
  if (!ok && gone(*card)) return finish(*card, ok, values, out);  // lost: neither values nor processes
  if (plan.processes || measures_from_scan()) {
    // From /proc, not from the card: a suspended GPU's clients may still
    // hold memory, and reading amdgpu's fdinfo does not wake it (xe's may:
    // VENDORS.md 1.3).
    const std::shared_ptr<const DrmScan> scan = drm_scans_->for_card(card->info.pci_bus_id, now());
    hidden_processes_.store(scan->hidden_processes, std::memory_order_relaxed);
    const std::size_t first_new = processes.size();
    read_scan(*card, *scan, values, plan.processes ? &processes : nullptr);
    for (std::size_t i = first_new; i < processes.size(); ++i) processes[i].device_index = static_cast<int>(local_index);
  }
  return finish(*card, true, values, out);
}

}  // namespace gpuwatch
