#include "import/plausible.h"

#include <array>

namespace gpuwatch {

namespace {

constexpr double kPiB = 1125899906842624.0;  // 2^50: 1000x the largest GPU's or host's memory today
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

constexpr ValueRange kPercent{0, 100, "0 to 100 %"};
constexpr ValueRange kBytes{0, kPiB, "0 to 1 PiB"};
constexpr ValueRange kWatts{0, 10000, "0 to 10 kW"};
constexpr ValueRange kCelsius{-50, 200, "-50 to 200 °C"};
constexpr ValueRange kMhz{0, 100000, "0 to 100 GHz"};
constexpr ValueRange kPcieGen{0, 32, "0 to 32"};
constexpr ValueRange kBytesPerSec{0, 1e13, "0 to 10 TB/s"};

// In the order of DeviceMetric.
constexpr std::array<ValueRange, kDeviceMetricCount> kDeviceRanges{{
    kPercent,                                   // gpu_util_percent
    kPercent,                                   // mem_util_percent
    kBytes,                                     // mem_used_bytes
    kBytes,                                     // mem_total_bytes
    kBytes,                                     // mem_reserved_bytes
    kWatts,                                     // power_watts
    kWatts,                                     // power_limit_watts
    {0, 1e15, "0 to 1e15 J"},                   // energy_joules: 10 kW for 3,000 years
    kCelsius,                                   // temp_gpu_celsius
    kCelsius,                                   // temp_mem_celsius
    kCelsius,                                   // temp_junction_celsius
    kMhz,                                       // sm_clock_mhz
    kMhz,                                       // mem_clock_mhz
    kMhz,                                       // sm_clock_max_mhz
    kMhz,                                       // mem_clock_max_mhz
    {0, 200, "0 to 200 %"},                     // fan_percent: NVML says it may pass 100
    {0, 32, "P0 to P32"},                       // perf_state: 32 is NVML's "unknown"
    {0, kMaxExactInteger, "0 to 2^53"},         // clock_event_reasons: a bitmask
    kPcieGen,                                   // pcie_link_gen
    {0, 64, "0 to 64 lanes"},                   // pcie_link_width
    kPcieGen,                                   // pcie_link_gen_max
    {0, 64, "0 to 64 lanes"},                   // pcie_link_width_max
    kBytesPerSec,                               // pcie_tx_bytes_per_sec
    kBytesPerSec,                               // pcie_rx_bytes_per_sec
    kPercent,                                   // sm_active_percent
    kPercent,                                   // sm_occupancy_percent
    kPercent,                                   // tensor_active_percent
    kPercent,                                   // dram_bw_util_percent
    kPercent,                                   // fp64_active_percent
    kPercent,                                   // fp32_active_percent
    kPercent,                                   // fp16_active_percent
    kBytesPerSec,                               // nvlink_tx_bytes_per_sec
    kBytesPerSec,                               // nvlink_rx_bytes_per_sec
    kPercent,                                   // engine_graphics_percent
    kPercent,                                   // engine_compute_percent
    kPercent,                                   // engine_copy_percent
    kPercent,                                   // engine_video_percent
    kPercent,                                   // engine_video_enhance_percent
    {0, 3600, "0 to 3600 s"},                   // slow_read_age_seconds
}};

// In the order of HostMetric.
constexpr std::array<ValueRange, kHostMetricCount> kHostRanges{{
    kPercent,                                   // cpu_percent
    kBytes,                                     // mem_used_bytes
    kBytes,                                     // mem_total_bytes
    {0, 1e6, "0 to 1e6 % (10,000 cores)"},      // tree_cpu_percent: % of one core
    kBytes,                                     // tree_rss_bytes
    {0, 1e8, "0 to 1e8"},                       // tree_process_count
    kBytesPerSec,                               // tree_read_bytes_per_sec
}};

}  // namespace

const ValueRange& plausible_range(DeviceMetric m) { return kDeviceRanges[static_cast<std::size_t>(m)]; }
const ValueRange& plausible_range(HostMetric m) { return kHostRanges[static_cast<std::size_t>(m)]; }

}  // namespace gpuwatch
