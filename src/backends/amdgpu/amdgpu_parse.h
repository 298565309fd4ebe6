// Parsers for the amdgpu sysfs files whose text is more than one number
// (pp_dpm_* clock tables, PCIe link speeds, KFD topology properties). Pure functions over the file's
// text: no exceptions, no allocation, nullopt on anything malformed.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuwatch::amdgpu {

// A whole file that is one decimal integer ("42\n", "-5000\n"), as sysfs and
// hwmon print them.
std::optional<std::int64_t> parse_sysfs_integer(std::string_view text);

// One of pp_dpm_sclk / pp_dpm_mclk: lines "N: <f>Mhz" with " *" after the
// current level (kernel doc, amdgpu_pm.c "DOC: pp_dpm_sclk ..."). Some ASICs
// print a level without an index ("<f>Mhz *") or with a letter ("S: 19Mhz *",
// a deep-sleep level), so the part before ':' is not checked.
struct DpmClocks {
  std::optional<std::uint32_t> current_mhz;  // the line marked '*'; absent when none is
  std::uint32_t max_mhz = 0;                 // the highest level listed
};
std::optional<DpmClocks> parse_pp_dpm(std::string_view text);

// The PCIe generation of a link speed as the PCI core prints it in
// current_link_speed / max_link_speed ("16.0 GT/s PCIe" -> 4, "2.5 GT/s PCIe"
// -> 1). nullopt for "Unknown" and for rates no generation has.
std::optional<int> pcie_gen_from_speed(std::string_view text);

// A KFD topology node's PCI place, from its properties text ("name value"
// lines; amdgpu_kfd.h says which); nullopt when the text has no location_id
// (a CPU node has one too, 0: the caller also needs a non-zero gpu_id).
// Here rather than in amdgpu_kfd.cpp so that the fuzzer needs none of the
// file reading around it.
struct KfdNodePlace {
  std::uint32_t domain = 0;
  std::uint32_t bus = 0;
  std::uint32_t device = 0;
};
std::optional<KfdNodePlace> parse_kfd_node_properties(std::string_view text);

}  // namespace gpuwatch::amdgpu
