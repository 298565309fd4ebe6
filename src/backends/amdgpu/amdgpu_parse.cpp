#include "backends/amdgpu/amdgpu_parse.h"

#include <cstddef>

#include "core/lines.h"
#include "core/whole_number.h"

namespace gpuwatch::amdgpu {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> parse_sysfs_integer(std::string_view text) {
  return parse_whole_number<std::int64_t>(trimmed(text, kWhiteSpace));
}

std::optional<DpmClocks> parse_pp_dpm(std::string_view text) {
  DpmClocks clocks;
  bool any = false;
  while (!text.empty()) {
    std::string_view line = trimmed(take_line(text), kWhiteSpace);
    if (line.empty()) continue;
    // "1: 1455Mhz *": the level's name ends at ':' when there is one.
    if (const auto colon = line.find(':'); colon != std::string_view::npos) {
      line = trimmed(line.substr(colon + 1), kWhiteSpace);
    }
    bool current = false;
    if (line.ends_with('*')) {
      current = true;
      line = trimmed(line.substr(0, line.size() - 1), kWhiteSpace);
    }
    std::size_t digits = 0;
    while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
    const auto mhz = parse_whole_number<std::uint32_t>(line.substr(0, digits));
    if (!mhz || !equals_ignoring_case(trimmed(line.substr(digits), kWhiteSpace), "mhz")) return std::nullopt;
    any = true;
    if (*mhz > clocks.max_mhz) clocks.max_mhz = *mhz;
    if (current) clocks.current_mhz = *mhz;
  }
  if (!any) return std::nullopt;
  return clocks;
}

std::optional<int> pcie_gen_from_speed(std::string_view text) {
  text = trimmed(text, kWhiteSpace);
  // "<rate> GT/s[ PCIe]": the rate with its decimals, as the kernel spells it.
  const std::string_view rate = text.substr(0, text.find(' '));
  const std::string_view unit = trimmed(text.substr(rate.size()), kWhiteSpace);
  if (!unit.starts_with("GT/s")) return std::nullopt;
  struct Gen {
    std::string_view rate;
    int gen;
  };
  // Older kernels printed some rates without ".0" ("5 GT/s", "8 GT/s"): both spellings count.
  constexpr Gen kGens[] = {{"2.5", 1}, {"5.0", 2}, {"5", 2},  {"8.0", 3},  {"8", 3},  {"16.0", 4},
                           {"16", 4},  {"32.0", 5}, {"32", 5}, {"64.0", 6}, {"64", 6}};
  for (const Gen& g : kGens) {
    if (rate == g.rate) return g.gen;
  }
  return std::nullopt;
}

std::optional<KfdNodePlace> parse_kfd_node_properties(std::string_view text) {
  std::optional<std::uint32_t> location_id;
  std::uint32_t domain = 0;  // kernels before 5.x print no domain: 0
  while (!text.empty()) {
    const std::string_view line = trimmed(take_line(text), kWhiteSpace);
    const auto space = line.find(' ');
    if (space == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, space);
    const auto value = parse_whole_number<std::uint32_t>(trimmed(line.substr(space + 1), kWhiteSpace));
    if (!value) continue;
    if (key == "location_id") location_id = *value;
    if (key == "domain") domain = *value;
  }
  if (!location_id) return std::nullopt;
  // Bits 31-28 (or, on early MI300 kernels, the function bits) may carry the
  // partition: only the bus and the device number place the GPU.
  return KfdNodePlace{domain, (*location_id >> 8) & 0xFF, (*location_id >> 3) & 0x1F};
}

}  // namespace gpuwatch::amdgpu
