#include "backends/amdgpu/amdgpu_gpu_metrics.h"

#include <algorithm>
#include <cstddef>

#include "core/throttle_reasons.h"

namespace gpuwatch::amdgpu {
namespace {

// Where one field sits in one layout; width 0: the layout has no such field.
struct Field {
  std::uint16_t offset = 0;
  std::uint8_t width = 0;  // bytes: 1, 2 or 8
};
constexpr Field u8_at(std::uint16_t offset) { return {offset, 1}; }
constexpr Field u16_at(std::uint16_t offset) { return {offset, 2}; }
constexpr Field u64_at(std::uint16_t offset) { return {offset, 8}; }

// One content revision's layout and units. The offsets are those of the
// kernel's structs compiled with natural alignment (they are not packed:
// v1_0 and v2_0 carry a comment saying so), checked against the one size
// on record: sizeof(gpu_metrics_v1_3) = 120, the "Metric Version and Size"
// of a real v1.3 dump (ollama/ollama #9633).
struct Layout {
  std::uint8_t format;
  std::uint8_t content;
  Field temp_edge, temp_hotspot, temp_mem;
  Field gfx_activity, umc_activity;
  Field socket_power;
  Field energy;
  Field gfxclk, uclk;
  Field pcie_width, pcie_speed;
  Field indep_throttle;
  double temp_divisor = 1;      // APUs: centi-degrees
  double activity_divisor = 1;  // APUs: centi-percent
  double power_divisor = 1;     // v2.4: mW
};

// format 1, v1.0-v1.3 (Vega20, MI100/MI200, Navi/RDNA1-4): temperatures in
// °C, activities in %, average socket power in W (a real v1.3 dump: edge 41,
// hotspot 43, gfx 3 %, 20 W). Their energy_accumulator has no documented
// unit (the v1.4+ structs say 15.259 µJ; the RDNA dumps show 0): not read.
// v1.4-v1.8 (MI300-class, SMU 13.0.6/13.0.12): °C, %, current socket power
// in W, energy in 2^-16 J ("15.259uJ (2^-16) units" in the struct). They
// are not append-only: energy and the link move with each revision. Two
// v1.6 layouts were published under one number (kernels before the
// per-partition stats had throttle_status at 56, later ones dropped it),
// which moves its PCIe fields (64 vs 60): its link is not read; the fields
// read (up to energy at 16, clocks from 264) sit alike in both. v1.8
// differs from v1.7 only past offset 340 (per-partition stats).
// format 2 (APU), v2.1-v2.4: activities in centi-percent (amdgpu_top's
// gpu_activity.rs; v2.4's struct says "unit: centi"). Temperature and power
// only where v2.4 states the unit (centi-°C, mW); v2.0 (not naturally
// aligned, first Renoir kernels) and format 3 are not read.

// A layout that a later revision repeats, with that revision's number and
// (v1.3, v2.2+) the independent throttle status appended at `indep`.
constexpr Layout revision(Layout base, std::uint8_t content, Field indep = {}) {
  base.content = content;
  base.indep_throttle = indep;
  return base;
}

constexpr Layout kV1_0{.format = 1, .content = 0, .temp_edge = u16_at(16), .temp_hotspot = u16_at(18),
                       .temp_mem = u16_at(20), .gfx_activity = u16_at(28), .umc_activity = u16_at(30),
                       .socket_power = u16_at(34), .energy = {}, .gfxclk = u16_at(54), .uclk = u16_at(58),
                       .pcie_width = u8_at(74), .pcie_speed = u8_at(75), .indep_throttle = {}};
constexpr Layout kV1_1{.format = 1, .content = 1, .temp_edge = u16_at(4), .temp_hotspot = u16_at(6),
                       .temp_mem = u16_at(8), .gfx_activity = u16_at(16), .umc_activity = u16_at(18),
                       .socket_power = u16_at(22), .energy = {}, .gfxclk = u16_at(54), .uclk = u16_at(58),
                       .pcie_width = u16_at(74), .pcie_speed = u16_at(76), .indep_throttle = {}};
// v1.4 onwards: no edge sensor, current (not average) socket power.
constexpr Layout kV1_4{.format = 1, .content = 4, .temp_edge = {}, .temp_hotspot = u16_at(4), .temp_mem = u16_at(6),
                       .gfx_activity = u16_at(12), .umc_activity = u16_at(14), .socket_power = u16_at(10),
                       .energy = u64_at(24), .gfxclk = u16_at(240), .uclk = u16_at(280), .pcie_width = u16_at(48),
                       .pcie_speed = u16_at(50), .indep_throttle = {}};
// v1.5-v1.8 repeat v1.4's first 16 bytes; energy, clocks and link move.
constexpr Layout moved(std::uint8_t content, Field energy, Field gfxclk, Field uclk, Field width, Field speed) {
  Layout l = kV1_4;
  l.content = content;
  l.energy = energy;
  l.gfxclk = gfxclk;
  l.uclk = uclk;
  l.pcie_width = width;
  l.pcie_speed = speed;
  return l;
}
constexpr Layout kV1_7 = moved(7, u64_at(24), u16_at(296), u16_at(336), u16_at(68), u16_at(70));
constexpr Layout kV2_1{.format = 2, .content = 1, .temp_edge = {}, .temp_hotspot = {}, .temp_mem = {},
                       .gfx_activity = u16_at(28), .umc_activity = {}, .socket_power = {}, .energy = {},
                       .gfxclk = u16_at(76), .uclk = u16_at(80), .pcie_width = {}, .pcie_speed = {},
                       .indep_throttle = {}, .activity_divisor = 100};
// v2.4 states its units: temperature_gfx (the APU's GPU temperature, which
// stands in for edge) in centi-°C, socket power in mW.
constexpr Layout v2_4() {
  Layout l = revision(kV2_1, 4, u64_at(120));
  l.temp_edge = u16_at(4);
  l.socket_power = u16_at(40);
  l.temp_divisor = 100;
  l.power_divisor = 1000;
  return l;
}

constexpr Layout kLayouts[] = {
    kV1_0,
    kV1_1,
    revision(kV1_1, 2),
    revision(kV1_1, 3, u64_at(112)),
    kV1_4,
    moved(5, u64_at(88), u16_at(312), u16_at(352), u16_at(112), u16_at(114)),
    moved(6, u64_at(16), u16_at(264), u16_at(304), Field{}, Field{}),
    kV1_7,
    revision(kV1_7, 8),
    kV2_1,
    revision(kV2_1, 2, u64_at(120)),
    revision(kV2_1, 3, u64_at(120)),
    v2_4(),
};

// 2^-16 J per unit of energy_accumulator.
constexpr double kJoulesPerEnergyUnit = 1.0 / 65536.0;

// A field's little-endian value, when the bytes hold it and it is not the
// all-ones "not supported" value of its width.
class Reader {
 public:
  explicit Reader(std::span<const unsigned char> bytes) : bytes_(bytes) {}

  [[nodiscard]] std::optional<std::uint64_t> get(Field f) const {
    if (f.width == 0 || f.offset + std::size_t{f.width} > bytes_.size()) return std::nullopt;
    std::uint64_t v = 0;
    for (std::size_t i = f.width; i-- > 0;) v = (v << 8) | bytes_[f.offset + i];
    const std::uint64_t all_ones = f.width == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * f.width)) - 1;
    if (v == all_ones) return std::nullopt;
    return v;
  }

  [[nodiscard]] std::optional<double> scaled(Field f, double divisor) const {
    const auto v = get(f);
    if (!v) return std::nullopt;
    return static_cast<double>(*v) / divisor;
  }

 private:
  std::span<const unsigned char> bytes_;
};

const Layout* layout_of(std::uint8_t format, std::uint8_t content) {
  for (const Layout& l : kLayouts) {
    if (l.format == format && l.content == content) return &l;
  }
  return nullptr;
}

}  // namespace

std::optional<int> pcie_gen_from_tenths_gts(std::uint32_t tenths) {
  switch (tenths) {
    case 25: return 1;
    case 50: return 2;
    case 80: return 3;
    case 160: return 4;
    case 320: return 5;
    case 640: return 6;
    default: return std::nullopt;
  }
}

std::optional<GpuMetrics> parse_gpu_metrics(std::span<const unsigned char> bytes) {
  if (bytes.size() < 4) return std::nullopt;
  GpuMetrics m;
  m.structure_size = static_cast<std::uint16_t>(bytes[0] | (bytes[1] << 8));
  m.format_revision = bytes[2];
  m.content_revision = bytes[3];
  const Layout* layout = layout_of(m.format_revision, m.content_revision);
  if (layout == nullptr) return m;
  m.known_layout = true;
  // The driver writes structure_size bytes; past them (or past a short
  // read) nothing is the struct's.
  const Reader r(bytes.first(std::min<std::size_t>(bytes.size(), m.structure_size)));
  m.temp_edge_celsius = r.scaled(layout->temp_edge, layout->temp_divisor);
  m.temp_hotspot_celsius = r.scaled(layout->temp_hotspot, layout->temp_divisor);
  m.temp_mem_celsius = r.scaled(layout->temp_mem, layout->temp_divisor);
  m.gfx_activity_percent = r.scaled(layout->gfx_activity, layout->activity_divisor);
  m.umc_activity_percent = r.scaled(layout->umc_activity, layout->activity_divisor);
  m.socket_power_watts = r.scaled(layout->socket_power, layout->power_divisor);
  if (const auto units = r.get(layout->energy)) m.energy_joules = static_cast<double>(*units) * kJoulesPerEnergyUnit;
  m.gfxclk_mhz = r.scaled(layout->gfxclk, 1);
  m.uclk_mhz = r.scaled(layout->uclk, 1);
  if (const auto w = r.get(layout->pcie_width); w && *w > 0) m.pcie_link_width = static_cast<int>(*w);
  if (const auto s = r.get(layout->pcie_speed)) m.pcie_link_gen = pcie_gen_from_tenths_gts(static_cast<std::uint32_t>(*s));
  m.indep_throttle_status = r.get(layout->indep_throttle);
  return m;
}

DeviceValues device_values_of(const GpuMetrics& m) {
  using Metric = DeviceMetric;
  DeviceValues v;
  const auto put = [&v](Metric metric, std::optional<double> value) {
    if (value) v.set(metric, *value);
  };
  put(Metric::TempGpuCelsius, m.temp_edge_celsius ? m.temp_edge_celsius : m.temp_hotspot_celsius);
  put(Metric::TempMemCelsius, m.temp_mem_celsius);
  put(Metric::TempJunctionCelsius, m.temp_hotspot_celsius);
  put(Metric::GpuUtilPercent, m.gfx_activity_percent);
  put(Metric::MemUtilPercent, m.umc_activity_percent);
  put(Metric::PowerWatts, m.socket_power_watts);
  put(Metric::EnergyJoules, m.energy_joules);
  put(Metric::SmClockMhz, m.gfxclk_mhz);
  put(Metric::MemClockMhz, m.uclk_mhz);
  if (m.pcie_link_width) v.set(Metric::PcieLinkWidth, *m.pcie_link_width);
  if (m.pcie_link_gen) v.set(Metric::PcieLinkGen, *m.pcie_link_gen);
  if (m.indep_throttle_status) {
    v.set(Metric::ClockEventReasons, static_cast<double>(clock_event_reasons_from_indep_throttle(*m.indep_throttle_status)));
  }
  return v;
}

std::uint64_t clock_event_reasons_from_indep_throttle(std::uint64_t indep) {
  // SMU_THROTTLER_*_BIT groups (amdgpu_smu.h): 0-7 power limits (PPT0-3,
  // SPL, FPPT, SPPT, SPPT_APU), 16-23 current limits (TDC_*, EDC_*, APCC),
  // 32-43 temperature limits (TEMP_GPU .. TEMP_LIQUID1), 44-47 VRHOT0/1 and
  // PROCHOT_CPU/GFX (signals from hot regulators or the host), 56 PPM
  // (platform power management), 57 FIT (reliability).
  constexpr std::uint64_t kPowerBits = 0xFFULL;
  constexpr std::uint64_t kCurrentBits = 0xFFULL << 16;
  constexpr std::uint64_t kTemperatureBits = 0xFFFULL << 32;
  constexpr std::uint64_t kHotSignalBits = 0xFULL << 44;
  constexpr std::uint64_t kPpmBit = 1ULL << 56;
  constexpr std::uint64_t kFitBit = 1ULL << 57;
  std::uint64_t reasons = 0;
  if ((indep & (kPowerBits | kCurrentBits | kPpmBit)) != 0) reasons |= kThrottleSwPowerCap;
  if ((indep & kTemperatureBits) != 0) reasons |= kThrottleSwThermal;
  if ((indep & kHotSignalBits) != 0) reasons |= kThrottleHwThermal;
  if ((indep & kFitBit) != 0) reasons |= kThrottleHwSlowdown;
  return reasons;
}

}  // namespace gpuwatch::amdgpu
