// The PCI id lists that name GPUs, as pure functions over their text (no
// I/O; fuzzed: fuzz/pci_ids_fuzz.cpp): libdrm's amdgpu.ids and the PCI ID
// Repository's pci.ids, and a small built-in table for when neither is
// installed. backends/pci_names.h reads the files and picks the name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::pci_names {

inline constexpr std::uint16_t kAmdVendor = 0x1002;
inline constexpr std::uint16_t kIntelVendor = 0x8086;

// libdrm's amdgpu.ids: after comments (#) and a version line ("1.0.0"), lines
// "DEVICE,\tREVISION,\tNAME" with the ids in hex without 0x ("7448,\t00,\tAMD
// Radeon Pro W7900"); blanks around the fields are allowed (some lines have
// spaces). The name of the first line with both ids; nullopt when none.
std::optional<std::string> find_in_amdgpu_ids(std::string_view text, std::uint16_t device, std::uint8_t revision);

// pci.ids: a vendor line "VVVV  Vendor name" at the line's start, its
// devices on the lines below as "\tDDDD  Device name" (subsystems, with two
// tabs, and the class list at the end are skipped). The device's name as the
// file has it ("Navi 31 [Radeon Pro W7900]"); nullopt when the vendor or
// device is not there.
std::optional<std::string> find_in_pci_ids(std::string_view text, std::uint16_t vendor, std::uint16_t device);

// The marketing name of a pci.ids device name: what its last [...] holds when
// the name ends in one ("Navi 31 [Radeon Pro W7900]" -> "Radeon Pro W7900"),
// else the whole name.
std::string_view marketing_part(std::string_view pci_ids_name);

// The built-in table (facts from pci.ids): current Instinct, Radeon Pro, Data
// Center GPU Max and Flex, and Arc B-series parts. nullopt for any other id.
std::optional<std::string_view> builtin_name(std::uint16_t vendor, std::uint16_t device);

// "AMD Radeon Pro W7900" from "Radeon Pro W7900": the vendor's word first,
// unless the name already starts with it ("AMD Radeon PRO V710" stays).
std::string with_vendor(std::string_view vendor_word, std::string_view name);

// A sysfs id file's text ("0x7448\n") as a number; nullopt when it is not
// 0x and 1 to 4 hex digits.
std::optional<std::uint16_t> parse_sysfs_id(std::string_view text);

}  // namespace gpuwatch::pci_names
