#include "backends/pci_ids.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

#include <fmt/format.h>

#include "core/lines.h"

namespace gpuwatch::pci_names {

namespace {

// Exactly `digits` hex digits and nothing else.
template <typename T>
std::optional<T> hex_exactly(std::string_view s, std::size_t digits) {
  if (s.size() != digits) return std::nullopt;
  unsigned value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 16);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return static_cast<T>(value);
}

struct BuiltinEntry {
  std::uint16_t vendor;
  std::uint16_t device;
  std::string_view name;
};

// From pci.ids (2026.08.22), the marketing part of each device's name. Only
// ids that name one product: 0x744c (four Radeon RX models) and 0x7480
// (consumer and Pro parts) are left to the files. Sorted by (vendor, device).
constexpr std::array kBuiltin = {
    BuiltinEntry{kAmdVendor, 0x738c, "Instinct MI100"},
    BuiltinEntry{kAmdVendor, 0x7408, "Instinct MI250X"},
    BuiltinEntry{kAmdVendor, 0x740c, "Instinct MI250X/MI250"},
    BuiltinEntry{kAmdVendor, 0x740f, "Instinct MI210"},
    BuiltinEntry{kAmdVendor, 0x7448, "Radeon Pro W7900"},
    BuiltinEntry{kAmdVendor, 0x7449, "Radeon Pro W7800 48GB"},
    BuiltinEntry{kAmdVendor, 0x744a, "Radeon Pro W7900 Dual Slot"},
    BuiltinEntry{kAmdVendor, 0x745e, "Radeon Pro W7800"},
    BuiltinEntry{kAmdVendor, 0x7470, "Radeon PRO W7700"},
    BuiltinEntry{kAmdVendor, 0x7489, "Radeon Pro W7500"},
    BuiltinEntry{kAmdVendor, 0x74a0, "Instinct MI300A"},
    BuiltinEntry{kAmdVendor, 0x74a1, "Instinct MI300X"},
    BuiltinEntry{kAmdVendor, 0x74a2, "Instinct MI308X"},
    BuiltinEntry{kAmdVendor, 0x74a5, "Instinct MI325X"},
    BuiltinEntry{kAmdVendor, 0x74b5, "Instinct MI300X VF"},
    BuiltinEntry{kAmdVendor, 0x7551, "Radeon AI PRO R9700"},
    BuiltinEntry{kAmdVendor, 0x75a0, "Instinct MI350X"},
    BuiltinEntry{kAmdVendor, 0x75a3, "Instinct MI355X"},
    BuiltinEntry{kIntelVendor, 0x0bd5, "Data Center GPU Max 1550"},
    BuiltinEntry{kIntelVendor, 0x0bd6, "Data Center GPU Max 1550"},
    BuiltinEntry{kIntelVendor, 0x0bd7, "Data Center GPU Max 1350"},
    BuiltinEntry{kIntelVendor, 0x0bd8, "Data Center GPU Max 1350"},
    BuiltinEntry{kIntelVendor, 0x0bd9, "Data Center GPU Max 1100"},
    BuiltinEntry{kIntelVendor, 0x0bda, "Data Center GPU Max 1100"},
    BuiltinEntry{kIntelVendor, 0x0bdb, "Data Center GPU Max 1100"},
    BuiltinEntry{kIntelVendor, 0x56c0, "Data Center GPU Flex 170"},
    BuiltinEntry{kIntelVendor, 0x56c1, "Data Center GPU Flex 140"},
    BuiltinEntry{kIntelVendor, 0xe20b, "Arc B580"},
    BuiltinEntry{kIntelVendor, 0xe20c, "Arc B570"},
    BuiltinEntry{kIntelVendor, 0xe211, "Arc Pro B60"},
    BuiltinEntry{kIntelVendor, 0xe212, "Arc Pro B50"},
    BuiltinEntry{kIntelVendor, 0xe223, "Arc Pro B70"},
};
static_assert(std::is_sorted(kBuiltin.begin(), kBuiltin.end(), [](const BuiltinEntry& a, const BuiltinEntry& b) {
  return std::pair{a.vendor, a.device} < std::pair{b.vendor, b.device};
}));

}  // namespace

std::optional<std::string> find_in_amdgpu_ids(std::string_view text, std::uint16_t device, std::uint8_t revision) {
  while (!text.empty()) {
    const std::string_view line = take_line(text);
    if (line.starts_with('#')) continue;
    const auto first = line.find(',');
    const auto second = first == std::string_view::npos ? first : line.find(',', first + 1);
    if (second == std::string_view::npos) continue;  // the version line, blank lines
    const auto d = hex_exactly<std::uint16_t>(trimmed(line.substr(0, first), kWhiteSpace), 4);
    const auto r = hex_exactly<std::uint8_t>(trimmed(line.substr(first + 1, second - first - 1), kWhiteSpace), 2);
    const std::string_view name = trimmed(line.substr(second + 1), kWhiteSpace);
    if (d == device && r == revision && !name.empty()) return std::string(name);
  }
  return std::nullopt;
}

std::optional<std::string> find_in_pci_ids(std::string_view text, std::uint16_t vendor, std::uint16_t device) {
  bool in_vendor = false;
  while (!text.empty()) {
    const std::string_view line = take_line(text);
    if (line.empty() || line.starts_with('#')) continue;
    if (line.front() != '\t') {
      // A vendor line; the devices of ours end at the next one.
      if (in_vendor) return std::nullopt;
      in_vendor = line.size() > 4 && hex_exactly<std::uint16_t>(line.substr(0, 4), 4) == vendor &&
                  (line[4] == ' ' || line[4] == '\t');
      continue;
    }
    if (!in_vendor || line.size() < 6 || line[1] == '\t') continue;  // not ours, or a subsystem
    if (hex_exactly<std::uint16_t>(line.substr(1, 4), 4) != device || (line[5] != ' ' && line[5] != '\t')) continue;
    const std::string_view name = trimmed(line.substr(5), kWhiteSpace);
    if (name.empty()) return std::nullopt;
    return std::string(name);
  }
  return std::nullopt;
}

std::string_view marketing_part(std::string_view name) {
  name = trimmed(name, kWhiteSpace);
  if (!name.ends_with(']')) return name;
  const auto open = name.rfind('[');
  if (open == std::string_view::npos) return name;
  const std::string_view inside = trimmed(name.substr(open + 1, name.size() - open - 2), kWhiteSpace);
  return inside.empty() ? name : inside;
}

std::optional<std::string_view> builtin_name(std::uint16_t vendor, std::uint16_t device) {
  const auto it = std::lower_bound(kBuiltin.begin(), kBuiltin.end(), std::pair{vendor, device},
                                   [](const BuiltinEntry& e, const std::pair<std::uint16_t, std::uint16_t>& key) {
                                     return std::pair{e.vendor, e.device} < key;
                                   });
  if (it == kBuiltin.end() || it->vendor != vendor || it->device != device) return std::nullopt;
  return it->name;
}

std::string with_vendor(std::string_view vendor_word, std::string_view name) {
  if (name.starts_with(vendor_word) && (name.size() == vendor_word.size() || name[vendor_word.size()] == ' ')) {
    return std::string(name);
  }
  return fmt::format("{} {}", vendor_word, name);
}

std::optional<std::uint16_t> parse_sysfs_id(std::string_view text) {
  text = trimmed(text, kWhiteSpace);
  if (!text.starts_with("0x") || text.size() < 3 || text.size() > 6) return std::nullopt;
  return hex_exactly<std::uint16_t>(text.substr(2), text.size() - 2);
}

}  // namespace gpuwatch::pci_names
