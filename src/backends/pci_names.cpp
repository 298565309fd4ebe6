#include "backends/pci_names.h"

#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "backends/drm_cards.h"

namespace gpuwatch::pci_names {

namespace {

// Larger than any real file (pci.ids is about 1.5 MB, amdgpu.ids 40 KB): a
// bigger one is not an id list, and is not read into memory.
constexpr std::uintmax_t kMaxFileBytes = 16U << 20;

std::optional<std::string> read_small_file(const std::filesystem::path& path) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxFileBytes) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(text).str();
}

}  // namespace

std::string gpu_name(const std::filesystem::path& share_root, const PciId& id, std::string_view vendor_word) {
  if (id.vendor == kAmdVendor && id.revision) {
    if (const auto text = read_small_file(share_root / "libdrm/amdgpu.ids")) {
      if (auto name = find_in_amdgpu_ids(*text, id.device, *id.revision)) return with_vendor(vendor_word, *name);
    }
  }
  for (const char* file : {"misc/pci.ids", "hwdata/pci.ids"}) {
    const auto text = read_small_file(share_root / file);
    if (!text) continue;
    if (const auto name = find_in_pci_ids(*text, id.vendor, id.device)) {
      return with_vendor(vendor_word, marketing_part(*name));
    }
  }
  if (const auto name = builtin_name(id.vendor, id.device)) return with_vendor(vendor_word, *name);
  return fmt::format("{} GPU 0x{:04x}", vendor_word, id.device);
}

std::string device_name(const std::filesystem::path& device_dir, const std::filesystem::path& share_root,
                        std::uint16_t vendor, std::string_view vendor_word) {
  const std::string device_text = drm_cards::read_text(device_dir / "device").value_or("");
  const auto device = parse_sysfs_id(device_text);
  if (!device) return fmt::format("{} GPU {}", vendor_word, device_text);
  PciId id{vendor, *device, std::nullopt};
  if (const auto revision = parse_sysfs_id(drm_cards::read_text(device_dir / "revision").value_or(""));
      revision && *revision <= 0xff) {
    id.revision = static_cast<std::uint8_t>(*revision);
  }
  return gpu_name(share_root, id, vendor_word);
}

}  // namespace gpuwatch::pci_names
