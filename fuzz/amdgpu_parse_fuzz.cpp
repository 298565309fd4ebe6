// The amdgpu sysfs parsers (KFD topology properties among them) on the same
// bytes: each must return or reject, never crash, and what it returns must
// be self-consistent. The same bytes also go to the binary gpu_metrics
// parser (seeds gpu_metrics_v1_*).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "backends/amdgpu/amdgpu_gpu_metrics.h"
#include "backends/amdgpu/amdgpu_parse.h"
#include "core/lines.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  namespace amdgpu = gpuwatch::amdgpu;

  if (const auto clocks = amdgpu::parse_pp_dpm(text)) {
    // The highest level is at least the current one.
    if (clocks->current_mhz && *clocks->current_mhz > clocks->max_mhz) __builtin_trap();
  }
  if (const auto gen = amdgpu::pcie_gen_from_speed(text); gen && (*gen < 1 || *gen > 6)) __builtin_trap();
  (void)amdgpu::parse_sysfs_integer(text);
  const std::string_view trimmed = gpuwatch::trimmed(text, gpuwatch::kWhiteSpace);
  if (trimmed.size() > size) __builtin_trap();
  if (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.back() == '\n')) __builtin_trap();

  if (const auto place = amdgpu::parse_kfd_node_properties(text)) {
    // Bus and device come out of masks, and only a location_id line places a node.
    if (place->bus > 0xFF || place->device > 0x1F) __builtin_trap();
    if (text.find("location_id") == std::string_view::npos) __builtin_trap();
  }

  const auto metrics = amdgpu::parse_gpu_metrics(std::span(data, size));
  if (size < 4 && metrics) __builtin_trap();
  if (metrics) {
    // No field without a known layout; none read past the bytes or the
    // header's size (the smallest field starts at 4 and is 2 bytes long).
    const gpuwatch::DeviceValues v = amdgpu::device_values_of(*metrics);
    if (!metrics->known_layout && !v.empty()) __builtin_trap();
    if (std::min<std::size_t>(size, metrics->structure_size) < 6 && !v.empty()) __builtin_trap();
    if (metrics->pcie_link_gen && (*metrics->pcie_link_gen < 1 || *metrics->pcie_link_gen > 6)) __builtin_trap();
    if (metrics->indep_throttle_status &&
        (amdgpu::clock_event_reasons_from_indep_throttle(*metrics->indep_throttle_status) & ~0x6CULL) != 0) {
      __builtin_trap();
    }
  }
  return 0;
}
