// The metric catalogue: every value gpuwatch samples, its unit, and how it is
// stored. Adding a metric means adding one enum value and one table row here;
// the store, exports and reports iterate over the table.
#pragma once

#include <array>
#include <bitset>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "core/bytes.h"

namespace gpuwatch {

// "No value" in columnar data (a double, unlike the float NAN macro).
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Per-device metrics. Units are fixed and part of the name.
enum class DeviceMetric : std::uint8_t {
  GpuUtilPercent,       // % of time a kernel ran (NVML utilization.gpu)
  MemUtilPercent,       // % of time device memory was read or written
  MemUsedBytes,
  MemTotalBytes,
  MemReservedBytes,     // reserved by the driver (NVML memory v2)
  PowerWatts,
  PowerLimitWatts,
  EnergyJoules,         // monotonic counter since driver load
  TempGpuCelsius,
  TempMemCelsius,
  // The hottest spot on the die (amdgpu hwmon "junction", gpu_metrics
  // hotspot); NVML has no such reading.
  TempJunctionCelsius,
  SmClockMhz,
  MemClockMhz,
  SmClockMaxMhz,
  MemClockMaxMhz,
  FanPercent,
  PerfState,            // P0 (max) .. P15 (min)
  ClockEventReasons,    // NVML clock-event (throttle) bitmask, see throttle.h
  PcieLinkGen,
  PcieLinkWidth,
  PcieLinkGenMax,
  PcieLinkWidthMax,
  PcieTxBytesPerSec,
  PcieRxBytesPerSec,
  // NVIDIA GPM (Hopper and newer): averages over the window between two GPM
  // samples, which is the slow interval (never under 100 ms, GPM's floor).
  SmActivePercent,      // time an SM had a warp resident, averaged over the SMs
  SmOccupancyPercent,   // warps resident / the SMs' maximum
  TensorActivePercent,  // any tensor pipe busy
  DramBwUtilPercent,    // % of peak DRAM bandwidth used
  Fp64ActivePercent,    // non-tensor FP64 pipe busy
  Fp32ActivePercent,
  Fp16ActivePercent,
  NvlinkTxBytesPerSec,  // all NVLinks together
  NvlinkRxBytesPerSec,
  // AMD and Intel, from DRM fdinfo: how busy each class of engines was over
  // the last second, its clients' busy time summed (visible clients only,
  // all of them under root). One neutral name per class: i915 render / xe
  // rcs / amdgpu gfx is graphics; compute / ccs / compute; copy / bcs / dma
  // (SDMA); video / vcs / the busiest of amdgpu's dec, enc, jpeg; and
  // video-enhance / vecs / vpe.
  EngineGraphicsPercent,
  EngineComputePercent,
  EngineCopyPercent,
  EngineVideoPercent,
  EngineVideoEnhancePercent,
  // How long before the sample's timestamp the slow metrics in it (energy,
  // PCIe throughput) were read: lets analysis place the energy counter at
  // its true time instead of the tick that carried it.
  SlowReadAgeSeconds,
  kCount
};

// Host metrics (per-core CPU is stored beside these as extra columns).
enum class HostMetric : std::uint8_t {
  CpuPercent,           // all cores, 0..100
  MemUsedBytes,         // MemTotal - MemAvailable
  MemTotalBytes,
  TreeCpuPercent,       // recorded process tree, % of one core (can exceed 100)
  TreeRssBytes,
  TreeProcessCount,
  TreeReadBytesPerSec,  // storage reads of the tree (/proc/PID/io read_bytes)
  kCount
};

// Per-process values on a GPU, read with the slow metrics: not columns of a
// sample (core/sample.h keeps the process lists), but named and shown like
// the columns wherever a process is listed (report, exporter).
enum class ProcessMetric : std::uint8_t {
  UsedMemoryBytes,  // GPU memory the process holds
  GpuPercent,       // its share of the GPU's time (NVML's SM share, DRM's busiest engine)
  kCount
};

// How often a metric is read. Fast: every tick. Slow: on the sampler's slow
// thread, every max(interval, 1 s): values that change slowly, and calls that
// block. Costly: on the slow thread every kCostlyPeriodSeconds and at the
// start and end of a run: calls that burn CPU in the driver (NVML's energy
// counter spins 3.4 ms per call on an H100, PCIe throughput 1 ms). Static:
// once, at start.
enum class Cadence : std::uint8_t { Fast, Slow, Costly, Static };

// Every 10 s the two costly calls were 0.054 % of a core on an H100, a fifth
// of the recorder's whole cost (docs/performance.md); the energy counter is
// cumulative, so reading it less often loses nothing between its start and
// end readings.
inline constexpr int kCostlyPeriodSeconds = 30;

// How a value is shown to people: in `unit`, the stored value divided by
// `divisor`, with `decimals` places. Derived numbers (compare's, the group
// summary's) use the same formats, so a GiB is shown alike everywhere.
struct DisplayFormat {
  std::string_view unit;
  double divisor;
  int decimals;
};

namespace display {
inline constexpr DisplayFormat kPercent{"%", 1, 1};
inline constexpr DisplayFormat kWholePercent{"%", 1, 0};
inline constexpr DisplayFormat kGiBytes{"GiB", kGiB, 2};
inline constexpr DisplayFormat kGiBytesTotal{"GiB", kGiB, 1};
inline constexpr DisplayFormat kMiBytes{"MiB", kMiB, 0};
inline constexpr DisplayFormat kWatts{"W", 1, 1};
inline constexpr DisplayFormat kWholeWatts{"W", 1, 0};
inline constexpr DisplayFormat kKilojoules{"kJ", 1000, 1};
inline constexpr DisplayFormat kCelsius{"°C", 1, 1};
inline constexpr DisplayFormat kMegahertz{"MHz", 1, 0};
inline constexpr DisplayFormat kMegabytesPerSecond{"MB/s", 1e6, 1};
inline constexpr DisplayFormat kGigabytesPerSecond{"GB/s", 1e9, 2};  // NVLink: hundreds of GB/s
inline constexpr DisplayFormat kCoreShare{"% of a core", 1, 1};
inline constexpr DisplayFormat kSeconds{"s", 1, 3};
inline constexpr DisplayFormat kPlain{"", 1, 0};  // states, masks, counts
}  // namespace display

struct MetricInfo {
  std::string_view name;   // stable identifier: JSON keys, CSV headers, DB
  std::string_view unit;   // the stored unit
  double scale;            // stored as llround(value * scale): fixed point
  Cadence cadence;
  // How people see it, in every report, plot, table and live view: what it
  // is ("GPU utilization"), its word in a table's column ("utilization",
  // followed by the display unit), its tag where room is short (top's
  // gauges, `sample`'s dmon-like columns, status lines: "util"; one word,
  // no space, so a whitespace-split header still lines up), and its display
  // format.
  std::string_view label;
  std::string_view short_label;
  std::string_view tag;
  DisplayFormat display;
};

inline constexpr std::size_t kDeviceMetricCount = static_cast<std::size_t>(DeviceMetric::kCount);
inline constexpr std::size_t kHostMetricCount = static_cast<std::size_t>(HostMetric::kCount);
inline constexpr std::size_t kProcessMetricCount = static_cast<std::size_t>(ProcessMetric::kCount);

// Scales keep every driver-reported value exact (mW, mJ, m°C, KiB/s are integers).
inline constexpr std::array<MetricInfo, kDeviceMetricCount> kDeviceMetrics{{
    {"gpu_util_percent", "%", 100, Cadence::Fast, "GPU utilization", "utilization", "util", display::kPercent},
    {"mem_util_percent", "%", 100, Cadence::Fast, "Memory activity", "memory util", "mutil", display::kPercent},
    {"mem_used_bytes", "B", 1, Cadence::Fast, "Memory used", "memory used", "mem", display::kGiBytes},
    {"mem_total_bytes", "B", 1, Cadence::Fast, "Memory total", "memory total", "total", display::kGiBytesTotal},
    {"mem_reserved_bytes", "B", 1, Cadence::Fast, "Memory reserved", "memory reserved", "resv", display::kGiBytes},
    {"power_watts", "W", 1000, Cadence::Fast, "Power", "power", "power", display::kWatts},
    {"power_limit_watts", "W", 1000, Cadence::Slow, "Power limit", "power limit", "plimit", display::kWholeWatts},
    {"energy_joules", "J", 1000, Cadence::Costly, "Energy counter", "energy", "energy", display::kKilojoules},
    {"temp_gpu_celsius", "°C", 1000, Cadence::Slow, "GPU temperature", "temperature", "temp", display::kCelsius},
    {"temp_mem_celsius", "°C", 1000, Cadence::Slow, "Memory temperature", "memory temp", "mtemp", display::kCelsius},
    {"temp_junction_celsius", "°C", 1000, Cadence::Slow, "Junction temperature", "junction temp",
     "junction", display::kCelsius},
    {"sm_clock_mhz", "MHz", 1, Cadence::Slow, "SM clock", "SM clock", "clock", display::kMegahertz},
    {"mem_clock_mhz", "MHz", 1, Cadence::Slow, "Memory clock", "memory clock", "mclock", display::kMegahertz},
    {"sm_clock_max_mhz", "MHz", 1, Cadence::Static, "Max SM clock", "max SM clock", "maxclock", display::kMegahertz},
    {"mem_clock_max_mhz", "MHz", 1, Cadence::Static, "Max memory clock", "max memory clock",
     "maxmclock", display::kMegahertz},
    {"fan_percent", "%", 100, Cadence::Slow, "Fan speed", "fan", "fan", display::kWholePercent},
    {"perf_state", "P", 1, Cadence::Slow, "Performance state", "P-state", "pstate", display::kPlain},
    {"clock_event_reasons", "mask", 1, Cadence::Slow, "Clock event reasons", "clock events",
     "throttle", display::kPlain},
    {"pcie_link_gen", "gen", 1, Cadence::Slow, "PCIe link generation", "PCIe gen", "gen", display::kPlain},
    {"pcie_link_width", "lanes", 1, Cadence::Slow, "PCIe link width", "PCIe lanes", "lanes", display::kPlain},
    {"pcie_link_gen_max", "gen", 1, Cadence::Static, "Max PCIe link generation", "max PCIe gen",
     "maxgen", display::kPlain},
    {"pcie_link_width_max", "lanes", 1, Cadence::Static, "Max PCIe link width", "max PCIe lanes",
     "maxlanes", display::kPlain},
    {"pcie_tx_bytes_per_sec", "B/s", 1, Cadence::Costly, "PCIe transmit", "PCIe TX",
     "pcietx", display::kMegabytesPerSecond},
    {"pcie_rx_bytes_per_sec", "B/s", 1, Cadence::Costly, "PCIe receive", "PCIe RX",
     "pcierx", display::kMegabytesPerSecond},
    {"sm_active_percent", "%", 100, Cadence::Slow, "SM active", "SM active", "smact", display::kPercent},
    {"sm_occupancy_percent", "%", 100, Cadence::Slow, "SM occupancy", "SM occupancy", "smocc", display::kPercent},
    {"tensor_active_percent", "%", 100, Cadence::Slow, "Tensor pipes active", "tensor active",
     "tensor", display::kPercent},
    {"dram_bw_util_percent", "%", 100, Cadence::Slow, "DRAM bandwidth used", "DRAM BW", "dram", display::kPercent},
    {"fp64_active_percent", "%", 100, Cadence::Slow, "FP64 pipe active", "FP64 active", "fp64", display::kPercent},
    {"fp32_active_percent", "%", 100, Cadence::Slow, "FP32 pipe active", "FP32 active", "fp32", display::kPercent},
    {"fp16_active_percent", "%", 100, Cadence::Slow, "FP16 pipe active", "FP16 active", "fp16", display::kPercent},
    {"nvlink_tx_bytes_per_sec", "B/s", 1, Cadence::Slow, "NVLink transmit", "NVLink TX",
     "nvltx", display::kGigabytesPerSecond},
    {"nvlink_rx_bytes_per_sec", "B/s", 1, Cadence::Slow, "NVLink receive", "NVLink RX",
     "nvlrx", display::kGigabytesPerSecond},
    {"engine_graphics_percent", "%", 100, Cadence::Slow, "Graphics engines busy", "graphics engines",
     "gfx", display::kPercent},
    {"engine_compute_percent", "%", 100, Cadence::Slow, "Compute engines busy", "compute engines",
     "compute", display::kPercent},
    {"engine_copy_percent", "%", 100, Cadence::Slow, "Copy engines busy", "copy engines", "copy", display::kPercent},
    {"engine_video_percent", "%", 100, Cadence::Slow, "Video engines busy", "video engines",
     "video", display::kPercent},
    {"engine_video_enhance_percent", "%", 100, Cadence::Slow, "Video enhance engines busy", "video enhance engines",
     "vpe", display::kPercent},
    {"slow_read_age_seconds", "s", 1e6, Cadence::Slow, "Age of slow reads", "slow read age", "age", display::kSeconds},
}};

inline constexpr std::array<MetricInfo, kHostMetricCount> kHostMetrics{{
    {"cpu_percent", "%", 100, Cadence::Slow, "Host CPU", "host CPU", "CPU", display::kPercent},
    {"mem_used_bytes", "B", 1, Cadence::Slow, "Host memory used", "host memory used", "RAM", display::kGiBytes},
    {"mem_total_bytes", "B", 1, Cadence::Slow, "Host memory total", "host memory total",
     "total", display::kGiBytesTotal},
    {"tree_cpu_percent", "%", 100, Cadence::Slow, "Command CPU", "command CPU", "cmdcpu", display::kCoreShare},
    {"tree_rss_bytes", "B", 1, Cadence::Slow, "Command RSS", "command RSS", "rss", display::kMiBytes},
    {"tree_process_count", "", 1, Cadence::Slow, "Command processes", "processes", "procs", display::kPlain},
    {"tree_read_bytes_per_sec", "B/s", 1, Cadence::Slow, "Command storage reads", "reads",
     "reads", display::kMegabytesPerSecond},
}};

// `scale` 1: a process's values are not stored in fixed point.
inline constexpr std::array<MetricInfo, kProcessMetricCount> kProcessMetrics{{
    {"used_memory_bytes", "B", 1, Cadence::Slow, "Process GPU memory", "GPU memory", "mem", display::kMiBytes},
    {"gpu_percent", "%", 1, Cadence::Slow, "Process GPU use", "GPU use", "GPU%", display::kWholePercent},
}};

constexpr const MetricInfo& info(DeviceMetric m) { return kDeviceMetrics[static_cast<std::size_t>(m)]; }
constexpr const MetricInfo& info(HostMetric m) { return kHostMetrics[static_cast<std::size_t>(m)]; }
constexpr const MetricInfo& info(ProcessMetric m) { return kProcessMetrics[static_cast<std::size_t>(m)]; }

// Position of the metric called `name` in a metric table, or -1: how stored
// column lists and imported files are mapped by name, not by enum position.
template <typename Table>
constexpr int metric_index_by_name(const Table& table, std::string_view name) {
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// A fixed set of optional values with explicit validity, as nvtop keeps them:
// a metric that was not read is absent, never zero.
template <typename Metric, std::size_t N>
class MetricValues {
 public:
  void set(Metric m, double value) {
    values_[index(m)] = value;
    valid_.set(index(m));
  }
  void clear(Metric m) { valid_.reset(index(m)); }
  [[nodiscard]] bool has(Metric m) const { return valid_.test(index(m)); }
  [[nodiscard]] std::optional<double> get(Metric m) const {
    if (!has(m)) return std::nullopt;
    return values_[index(m)];
  }
  // Value or NaN: convenient for columnar analysis.
  [[nodiscard]] double value_or_nan(Metric m) const { return has(m) ? values_[index(m)] : kNaN; }
  [[nodiscard]] bool empty() const { return valid_.none(); }
  // Copies every valid value of `other` over this one.
  void merge_from(const MetricValues& other) {
    for (std::size_t i = 0; i < N; ++i) {
      if (other.valid_.test(i)) {
        values_[i] = other.values_[i];
        valid_.set(i);
      }
    }
  }

 private:
  static constexpr std::size_t index(Metric m) { return static_cast<std::size_t>(m); }
  std::array<double, N> values_{};
  std::bitset<N> valid_;
};

using DeviceValues = MetricValues<DeviceMetric, kDeviceMetricCount>;
using HostValues = MetricValues<HostMetric, kHostMetricCount>;

}  // namespace gpuwatch
