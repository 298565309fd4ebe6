// The amdgpu driver's binary sensor snapshot, device/gpu_metrics: one read
// gives every sensor the SMU firmware reported at one time. A versioned C
// struct, little-endian, that starts with {u16 structure_size; u8
// format_revision; u8 content_revision}. Format 1 is a dGPU's, format 2 an
// APU's; each content revision has its own layout (the kernel's
// drivers/gpu/drm/amd/include/kgd_pp_interface.h, gpu_metrics_v1_0 ..
// gpu_metrics_v2_4; offsets and units per version in amdgpu_gpu_metrics.cpp,
// sources in ../shared/VENDORS.md section 1.2 and docs/amdgpu.md).
//
// Pure function over the bytes: no allocation, no exceptions, never a read
// past the end. A field is taken only when the version has it, the bytes
// hold it, and it is not the firmware's "not supported" value (all bits
// set: 0xFF, 0xFFFF, 0xFFFFFFFF, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "core/metrics.h"

namespace gpuwatch::amdgpu {

struct GpuMetrics {
  std::uint16_t structure_size = 0;
  std::uint8_t format_revision = 0;
  std::uint8_t content_revision = 0;
  bool known_layout = false;  // a format and revision this parser reads
  // Every value in the catalogue's unit.
  std::optional<double> temp_edge_celsius;
  std::optional<double> temp_hotspot_celsius;  // "junction" in hwmon
  std::optional<double> temp_mem_celsius;
  std::optional<double> gfx_activity_percent;
  std::optional<double> umc_activity_percent;  // memory controller
  std::optional<double> socket_power_watts;    // average (v1.0-1.3, APU) or current (v1.4+)
  std::optional<double> energy_joules;         // the firmware's accumulator since load
  std::optional<double> gfxclk_mhz;            // current, first instance
  std::optional<double> uclk_mhz;              // current memory clock
  std::optional<int> pcie_link_width;
  std::optional<int> pcie_link_gen;            // from the speed in 0.1 GT/s
  // The ASIC-independent throttle bits (SMU_THROTTLER_*_BIT, amdgpu_smu.h),
  // only where the layout has them (v1.3, v2.2+): the ASIC-dependent
  // throttle_status means something else on every SMU generation.
  std::optional<std::uint64_t> indep_throttle_status;
};

// nullopt when the bytes do not even hold the header. An unknown format or
// revision gives the header and no fields.
std::optional<GpuMetrics> parse_gpu_metrics(std::span<const unsigned char> bytes);

// The independent throttle bits as gpuwatch's clock-event reasons (the NVML
// bits of core/throttle.h): power and current limiters -> sw_power_cap,
// temperature limiters -> sw_thermal_slowdown, VR_HOT / PROCHOT signals ->
// hw_thermal_slowdown, FIT (reliability) -> hw_slowdown.
std::uint64_t clock_event_reasons_from_indep_throttle(std::uint64_t indep_throttle_status);

// The snapshot as catalogue metrics: TempGpuCelsius is the edge sensor, or
// the hotspot where there is no edge (as the hwmon reader picks them);
// TempJunctionCelsius is the hotspot whenever there is one;
// ClockEventReasons from the independent throttle bits, EnergyJoules from
// the accumulator.
DeviceValues device_values_of(const GpuMetrics& m);

// The PCIe generation of a link speed in 0.1 GT/s (25 -> 1, 160 -> 4, 320 -> 5).
std::optional<int> pcie_gen_from_tenths_gts(std::uint32_t tenths);

}  // namespace gpuwatch::amdgpu
