// Names for AMD and Intel GPUs, whose sysfs has no marketing name (an AMD
// board without a FRU product_name, every Intel card): looked up by PCI id
// as lspci and amdgpu_top do. In order: libdrm's amdgpu.ids (AMD only, by
// device and revision), the PCI ID Repository's pci.ids, a small built-in
// table of current datacenter and workstation parts, and last the id itself
// ("AMD GPU 0x7448"). The files are read under a folder passed in
// (SystemPaths::share_root, /usr/share by default), so tests point it at
// fixtures.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "backends/pci_ids.h"

namespace gpuwatch::pci_names {

struct PciId {
  std::uint16_t vendor = 0;
  std::uint16_t device = 0;
  std::optional<std::uint8_t> revision;  // sysfs "revision"; amdgpu.ids needs it
};

// The name of the GPU, from the first source that knows it (see the top of
// this file), with the vendor's word ("AMD", "Intel") in front.
// share_root/libdrm/amdgpu.ids, share_root/misc/pci.ids and
// share_root/hwdata/pci.ids are read when they exist; a missing or
// unreadable file is skipped.
std::string gpu_name(const std::filesystem::path& share_root, const PciId& id, std::string_view vendor_word);

// gpu_name() of the PCI device in sysfs `device_dir` (its "device" and
// "revision" files); "<vendor_word> GPU <device file's text>" when the id
// cannot be read.
std::string device_name(const std::filesystem::path& device_dir, const std::filesystem::path& share_root,
                        std::uint16_t vendor, std::string_view vendor_word);

}  // namespace gpuwatch::pci_names
