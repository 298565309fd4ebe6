// The amdgpu sysfs parsers on the same bytes: each must return or reject,
// never crash, and what it returns must be self-consistent.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "backends/amdgpu/amdgpu_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  namespace amdgpu = gpuwatch::amdgpu;

  if (const auto clocks = amdgpu::parse_pp_dpm(text)) {
    // The highest level is at least the current one.
    if (clocks->current_mhz && *clocks->current_mhz > clocks->max_mhz) __builtin_trap();
  }
  if (const auto gen = amdgpu::pcie_gen_from_speed(text); gen && (*gen < 1 || *gen > 6)) __builtin_trap();
  (void)amdgpu::parse_sysfs_integer(text);
  const std::string_view trimmed = amdgpu::trim_sysfs(text);
  if (trimmed.size() > size) __builtin_trap();
  if (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.back() == '\n')) __builtin_trap();
  return 0;
}
