// The PCI id list parsers (backends/pci_ids.h) on arbitrary text: each must
// return or reject, never crash, and a name found is never empty, has no
// line break, and is no longer than the text it came from.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "backends/pci_ids.h"

namespace {

void check_name(const std::string& name, std::size_t text_size) {
  if (name.empty() || name.size() > text_size || name.find('\n') != std::string::npos) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  namespace pci = gpuwatch::pci_names;
  // The ids the backends ask for, and the first bytes as ids: a name the
  // input itself defines can be found.
  const std::uint16_t wanted = size >= 2 ? static_cast<std::uint16_t>(data[0] << 8 | data[1]) : 0x7448;
  for (const std::uint16_t device : {std::uint16_t{0x7448}, std::uint16_t{0xe212}, wanted}) {
    for (const std::uint8_t revision : {std::uint8_t{0x00}, std::uint8_t{0xc8}}) {
      if (const auto name = pci::find_in_amdgpu_ids(text, device, revision)) check_name(*name, size);
    }
    for (const std::uint16_t vendor : {pci::kAmdVendor, pci::kIntelVendor}) {
      if (const auto name = pci::find_in_pci_ids(text, vendor, device)) {
        check_name(*name, size);
        const std::string_view part = pci::marketing_part(*name);
        if (part.empty() || part.size() > name->size()) __builtin_trap();
      }
    }
  }
  const std::string_view part = pci::marketing_part(text);
  if (part.size() > size) __builtin_trap();
  // Only "0x" and hex digits, blanks around them, make an id.
  if (pci::parse_sysfs_id(text) && text.find("0x") != text.find_first_not_of(" \t\r\n")) __builtin_trap();
  return 0;
}
