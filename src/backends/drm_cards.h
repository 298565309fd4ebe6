// What every sysfs-based GPU backend (amdgpu, Intel i915/xe) needs to find
// its cards: the DRM card directories under <sysfs>/class/drm, the PCI slot
// each one hangs off, and small whole-file reads for discovery. Reads here
// go by path and are meant for open() only, not for every tick.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::drm_cards {

// The card directories' names ("card1", not "card1-DP-1" or "renderD128"),
// in the kernel's order (card2 before card10).
std::vector<std::string> list_cards(const std::filesystem::path& drm_class);

// The PCI address ("0000:03:00.0") of card_dir/device: the kernel links it
// to "../../../0000:03:00.0"; else the resolved directory's name. Empty when
// neither reads.
std::string pci_bus_id(const std::filesystem::path& card_dir);

// The name of the driver bound to a device: its "driver" link's last part;
// empty when there is none.
std::string driver_of(const std::filesystem::path& device);

// One GPU of the vendor asked for, driven by one of the drivers asked for.
struct FoundCard {
  std::filesystem::path card_dir;  // <root>/class/drm/cardN
  std::string pci_bus_id;          // "0000:03:00.0"
  std::string driver;              // the driver's name, e.g. "xe"
};

// The cards under <sysfs_root>/class/drm whose device/vendor is vendor_id
// ("0x1002") and whose driver is one of `drivers`, each PCI device once, in
// the kernel's order. Cards without a vendor file (other vendors' devices,
// and platform devices such as an MI300X partition's extra card node) are
// not the vendor's. The vendor's cards with another driver, or none, are
// added to other_driver as "0000:03:00.0 (radeon)" for the caller to explain.
std::vector<FoundCard> find_cards(const std::filesystem::path& sysfs_root, std::string_view vendor_id,
                                  const std::vector<std::string_view>& drivers,
                                  std::vector<std::string>& other_driver);

// "a, b, c".
std::string join(const std::vector<std::string>& items);

// A whole small file, trimmed of blanks and newlines.
std::optional<std::string> read_text(const std::filesystem::path& path);

// The file exists under the directory fd (false for an invalid fd or name).
bool exists_at(int dir_fd, const std::string& name);

}  // namespace gpuwatch::drm_cards
