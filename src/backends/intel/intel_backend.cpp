#include "backends/intel/intel_backend.h"

#include <fcntl.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bitset>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "backends/amdgpu/amdgpu_parse.h"
#include "backends/drm_cards.h"
#include "backends/intel/intel_processes.h"
#include "backends/pci_names.h"
#include "backends/procfs/read_at.h"
#include "core/lines.h"
#include "core/throttle_reasons.h"
#include "base/unique_fd.h"

namespace gpuwatch {
namespace intel {

// Not in an unnamed namespace: Device's fields have these types (a unity
// build would warn that Device depends on another unit's internal types).
// The directories a card's files live in.
enum class Dir : std::uint8_t {
  Device,  // <root>/class/drm/cardN/device: the PCI device
  Card,    // <root>/class/drm/cardN: i915's gt_*_freq_mhz files
  Hwmon,   // device/hwmon/hwmonM whose name is the driver's
  Freq,    // xe: device/tile0/gt0/freq0
  Throttle,  // xe: Freq's throttle/; i915: cardN/gt/gt0
  kCount
};

// One file; an empty name is a file the card does not have.
struct File {
  Dir dir = Dir::Device;
  std::string name;
  [[nodiscard]] bool on() const { return !name.empty(); }
};

}  // namespace intel

struct IntelBackend::Device : SysfsCard {
  std::string driver;       // "i915" or "xe"
  bool integrated = false;  // its memory is the host's
  std::optional<double> vram_total_bytes;  // xe: every tile's, read once, sent with every fast read
  std::array<UniqueFd, static_cast<std::size_t>(intel::Dir::kCount)> dirs;
  intel::File runtime_status, clock, energy, power_limit, temp_gpu, temp_mem, fan;
  // Whether the GT's frequency is held down at all, then each reason's
  // file with the ClockEventReasons bit it maps onto.
  intel::File throttle_status;
  std::vector<std::pair<intel::File, std::uint64_t>> throttle_reasons;
  double fan_full_scale = 0;  // fan1_max, RPM
  // The fast thread's previous energy reading, for power.
  std::optional<std::int64_t> last_energy_uj;
  std::int64_t last_energy_ns = 0;
  // The last fdinfo scan's utilization and VRAM used (NaN: absent), written
  // by read_slow, sent with every read_fast: they are Fast metrics, and
  // every tick has them as it has NVML's (itself an average over a window).
  std::atomic<double> scan_util{kNaN};
  std::atomic<double> scan_mem_used{kNaN};
};

namespace intel {
namespace {

namespace fs = std::filesystem;
using DM = DeviceMetric;
using Device = IntelBackend::Device;

constexpr std::string_view kIntelVendorId = "0x8086";
// The slot of Intel's integrated GPUs (device 2 on the root bus; the i915
// fdinfo example in VENDORS.md 1.1 is on it too); discrete cards sit behind
// a root port. An iGPU's memory is the host's: no VRAM to report.
constexpr std::string_view kIntegratedSlot = "0000:00:02.0";

int fd_of(const Device& card, Dir d) { return card.dirs[static_cast<std::size_t>(d)].get(); }

// One pass over a card's files by one thread. A failed read leaves its
// value out and is remembered, so that the caller can tell a vanished GPU
// from one sensor's hiccup.
class Round {
 public:
  Round(Device& card, std::string& buf) : card_(card), buf_(buf) {}

  std::optional<std::int64_t> integer(const File& f) {
    if (!f.on()) return std::nullopt;
    const std::optional<std::string_view> text = read_at(fd_of(card_, f.dir), f.name.c_str(), buf_);
    std::optional<std::int64_t> value = text ? amdgpu::parse_sysfs_integer(*text) : std::nullopt;
    if (!value) failed_ = true;
    return value;
  }

  // power/runtime_status is "suspended": reading a sensor would wake the GPU.
  bool asleep() {
    if (!card_.runtime_status.on()) return false;
    const auto text = read_at(fd_of(card_, Dir::Device), card_.runtime_status.name.c_str(), buf_);
    if (!text) {
      failed_ = true;
      return false;
    }
    const std::string_view status = trimmed(*text, kWhiteSpace);
    return status == "suspended" || status == "suspending";
  }

  [[nodiscard]] bool failed() const { return failed_; }

 private:
  Device& card_;
  std::string& buf_;
  bool failed_ = false;
};

// Power as energy over time: neither driver has a power file in its hwmon
// ABI. Absent on the first reading and when the counter steps back (a
// wrap, a driver reload); the next reading starts over from there.
void read_power(Round& r, Device& card, DeviceValues& out) {
  const std::optional<std::int64_t> uj = r.integer(card.energy);
  const std::int64_t t = now().mono_ns;
  if (!uj) {
    card.last_energy_uj.reset();
    return;
  }
  if (card.last_energy_uj && *uj >= *card.last_energy_uj && t > card.last_energy_ns) {
    const double joules = static_cast<double>(*uj - *card.last_energy_uj) / 1e6;
    out.set(DM::PowerWatts, joules / (static_cast<double>(t - card.last_energy_ns) / 1e9));
  }
  card.last_energy_uj = uj;
  card.last_energy_ns = t;
}

// The throttle reasons of GT 0 (the render GT; on a card with a media GT
// that one's frequency is its own). Only when status says the frequency is
// held down are the reasons read: one read a round on a card at ease.
void read_throttle_reasons(Round& r, const Device& card, DeviceValues& out) {
  const std::optional<std::int64_t> throttled = r.integer(card.throttle_status);
  if (!throttled) return;
  std::uint64_t reasons = 0;
  if (*throttled != 0) {
    for (const auto& [file, bit] : card.throttle_reasons) {
      if (r.integer(file).value_or(0) != 0) reasons |= bit;
    }
  }
  out.set(DM::ClockEventReasons, static_cast<double>(reasons));
}

void read_slow_values(Round& r, const Device& card, const SlowReadPlan& plan, DeviceValues& out) {
  if (plan.costly) {
    if (const auto uj = r.integer(card.energy)) out.set(DM::EnergyJoules, static_cast<double>(*uj) / 1e6);
  }
  if (const auto mhz = r.integer(card.clock)) out.set(DM::SmClockMhz, static_cast<double>(*mhz));
  if (const auto uw = r.integer(card.power_limit)) out.set(DM::PowerLimitWatts, static_cast<double>(*uw) / 1e6);
  if (const auto mc = r.integer(card.temp_gpu)) out.set(DM::TempGpuCelsius, static_cast<double>(*mc) / 1000);
  if (const auto mc = r.integer(card.temp_mem)) out.set(DM::TempMemCelsius, static_cast<double>(*mc) / 1000);
  if (const auto rpm = r.integer(card.fan)) out.set(DM::FanPercent, static_cast<double>(*rpm) * 100 / card.fan_full_scale);
  read_throttle_reasons(r, card, out);
}

// The hwmon directory the driver registered for the whole device ("i915",
// "xe"), not i915's per-GT ones ("i915_gt0").
fs::path find_hwmon(const fs::path& device, const std::string& driver) {
  std::error_code ec;
  for (fs::directory_iterator it(device / "hwmon", ec), end; !ec && it != end; it.increment(ec)) {
    if (drm_cards::read_text(it->path() / "name") == driver) return it->path();
  }
  return {};
}

// "<prefix>N_label" files of a hwmon directory: N by label.
std::vector<std::pair<std::string, std::string>> labels(const fs::path& hwmon, std::string_view prefix) {
  std::vector<std::pair<std::string, std::string>> found;
  std::error_code ec;
  for (fs::directory_iterator it(hwmon, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (!file.starts_with(prefix) || !file.ends_with("_label")) continue;
    const std::string channel = file.substr(prefix.size(), file.size() - prefix.size() - 6);
    found.emplace_back(drm_cards::read_text(it->path()).value_or(""), channel);
  }
  return found;
}

std::string channel_labelled(const std::vector<std::pair<std::string, std::string>>& found,
                             std::initializer_list<std::string_view> wanted) {
  for (std::string_view w : wanted) {
    for (const auto& [label, channel] : found) {
      if (label == w) return channel;
    }
  }
  return {};
}

// Energy, power limit, temperatures and fan from the hwmon ABI docs
// (sysfs-driver-intel-{i915,xe}-hwmon). xe labels its channels: energy1
// "card" (the whole board), energy2 "pkg" (the GPU package): the card when
// it has one. i915 has one channel, energy1/power1, unlabelled.
void choose_hwmon_files(const fs::path& hwmon, Device& card) {
  if (hwmon.empty()) return;
  const int dir = fd_of(card, Dir::Hwmon);
  const auto pick = [&](std::string name) {
    return drm_cards::exists_at(dir, name) ? File{Dir::Hwmon, std::move(name)} : File{};
  };
  std::string channel = channel_labelled(labels(hwmon, "energy"), {"card", "pkg"});
  if (channel.empty()) channel = "1";
  card.energy = pick("energy" + channel + "_input");
  card.power_limit = pick("power" + channel + "_max");
  const auto temps = labels(hwmon, "temp");
  std::string gpu = channel_labelled(temps, {"pkg", "package"});
  std::string mem = channel_labelled(temps, {"vram"});
  if (temps.empty()) {
    // Unlabelled: xe's temp2 is the package and temp3 the VRAM; i915's
    // only sensor is temp1.
    gpu = card.driver == "xe" ? "2" : "1";
    mem = card.driver == "xe" ? "3" : "";
  }
  if (!gpu.empty()) card.temp_gpu = pick("temp" + gpu + "_input");
  if (!mem.empty()) card.temp_mem = pick("temp" + mem + "_input");
  // RPM is a percentage only against a maximum; xe's ABI has none.
  std::string buf;
  const auto text = read_at(dir, "fan1_max", buf);
  const auto max = text ? amdgpu::parse_sysfs_integer(*text) : std::nullopt;
  if (max && *max > 0) {
    card.fan_full_scale = static_cast<double>(*max);
    card.fan = pick("fan1_input");
  }
}

// The throttle files: xe's freq0/throttle/{status,reason_*}
// (xe_gt_throttle.c), i915's gt/gt0/throttle_reason_{status,*}
// (intel_gt_sysfs_pm.c). Power limits PL1/PL2/PL4 and the regulator's
// current limit are a power cap; the thermal limit and RATL (running
// average thermal limit) thermal slowdown; PROCHOT and the regulator's
// thermal alert are hot signals from outside the GPU.
void choose_throttle_files(Device& card) {
  static constexpr std::pair<const char*, std::uint64_t> kReasons[] = {
      {"pl1", kThrottleSwPowerCap},      {"pl2", kThrottleSwPowerCap},     {"pl4", kThrottleSwPowerCap},
      {"vr_tdc", kThrottleSwPowerCap},   {"thermal", kThrottleSwThermal},  {"ratl", kThrottleSwThermal},
      {"prochot", kThrottleHwThermal},   {"vr_thermalert", kThrottleHwThermal},
  };
  // xe: freq0/throttle/status and reason_pl1, ...; i915: throttle_reason_status and throttle_reason_pl1, ...
  const bool xe = card.driver == "xe";
  const std::string status_name = xe ? "status" : "throttle_reason_status";
  const std::string reason_prefix = xe ? "reason_" : "throttle_reason_";
  const int dir = fd_of(card, Dir::Throttle);
  const auto file = [&](const std::string& name) {
    return drm_cards::exists_at(dir, name) ? File{Dir::Throttle, name} : File{};
  };
  card.throttle_status = file(status_name);
  if (!card.throttle_status.on()) return;
  for (const auto& [reason, bit] : kReasons) {
    if (File f = file(reason_prefix + reason); f.on()) card.throttle_reasons.emplace_back(std::move(f), bit);
  }
}

// The current frequency: i915's actual one (gt_act_freq_mhz, from the
// hardware) where the kernel has it, else the requested one; xe's act_freq
// (resolved by PCODE; cur_freq is what GuC asked for).
void choose_files(const fs::path& hwmon, Device& card) {
  const auto pick = [&](Dir d, std::initializer_list<const char*> names) {
    for (const char* n : names) {
      if (drm_cards::exists_at(fd_of(card, d), n)) return File{d, n};
    }
    return File{};
  };
  card.runtime_status = pick(Dir::Device, {"power/runtime_status"});
  choose_throttle_files(card);
  card.clock = card.driver == "xe" ? pick(Dir::Freq, {"act_freq"}) : pick(Dir::Card, {"gt_act_freq_mhz", "gt_cur_freq_mhz"});
  choose_hwmon_files(hwmon, card);
}

// Reads each file once: one that does not parse is off for the run.
void probe(Device& card) {
  for (File* f : {&card.clock, &card.energy, &card.power_limit, &card.temp_gpu, &card.temp_mem, &card.fan,
                  &card.throttle_status}) {
    Round r(card, card.slow_buf);
    if (!r.integer(*f)) *f = File{};
  }
  std::erase_if(card.throttle_reasons, [&](const auto& reason) {
    Round r(card, card.slow_buf);
    return !r.integer(reason.first);
  });
}

// The maximum: RP0, the hardware's highest frequency, as NVML's maximum
// clock is the board's; max_freq / gt_max_freq_mhz is a limit that root
// may lower at any time, and the value is read only once.
// xe's VRAM: device/tile<N>/physical_vram_size_bytes on a discrete card
// (xe_tile_sysfs.c), summed over the tiles. i915 has no such file upstream:
// its memory regions are an ioctl's.
std::optional<double> xe_vram_total_bytes(const fs::path& device) {
  std::optional<double> total;
  for (int tile = 0; tile < 8; ++tile) {
    const fs::path dir = device / ("tile" + std::to_string(tile));
    const std::optional<std::string> text = drm_cards::read_text(dir / "physical_vram_size_bytes");
    if (!text) break;
    const std::optional<std::int64_t> bytes = amdgpu::parse_sysfs_integer(*text);
    if (bytes && *bytes > 0) total = total.value_or(0) + static_cast<double>(*bytes);
  }
  return total;
}

void read_static_facts(Device& card) {
  const bool xe = card.driver == "xe";
  const Dir d = xe ? Dir::Freq : Dir::Card;
  for (const char* name : xe ? std::array{"rp0_freq", "max_freq"} : std::array{"gt_RP0_freq_mhz", "gt_max_freq_mhz"}) {
    Round r(card, card.slow_buf);
    if (const auto mhz = r.integer(File{d, name}); mhz && *mhz > 0) {
      card.info.static_values.set(DM::SmClockMaxMhz, static_cast<double>(*mhz));
      return;
    }
  }
}

void list_supported(Device& card) {
  std::bitset<kDeviceMetricCount> m;
  const auto mark = [&](bool on, DM metric) {
    if (on) m.set(static_cast<std::size_t>(metric));
  };
  mark(true, DM::GpuUtilPercent);  // from fdinfo, where any client is seen
  for (const DM engine_class : kEngineClassMetrics) mark(true, engine_class);  // the same, per class
  mark(!card.integrated, DM::MemUsedBytes);
  mark(card.energy.on(), DM::PowerWatts);
  mark(card.energy.on(), DM::EnergyJoules);
  mark(card.power_limit.on(), DM::PowerLimitWatts);
  mark(card.temp_gpu.on(), DM::TempGpuCelsius);
  mark(card.temp_mem.on(), DM::TempMemCelsius);
  mark(card.clock.on(), DM::SmClockMhz);
  mark(card.fan.on(), DM::FanPercent);
  mark(card.throttle_status.on(), DM::ClockEventReasons);
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    if (card.info.static_values.has(static_cast<DM>(i))) m.set(i);
  }
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    if (m.test(i)) card.info.supported.push_back(static_cast<DM>(i));
  }
}

UniqueFd open_dir(const fs::path& path) {
  return UniqueFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

std::unique_ptr<Device> open_card(const fs::path& card_dir, const std::string& driver, const std::string& bus_id,
                                  const fs::path& share_root) {
  const fs::path device = card_dir / "device";
  auto card = std::make_unique<Device>();
  card->device_path = device.string();
  card->driver = driver;
  card->integrated = bus_id == kIntegratedSlot;
  card->dirs[static_cast<std::size_t>(Dir::Device)] = open_dir(device);
  if (!card->dirs[static_cast<std::size_t>(Dir::Device)].valid()) return nullptr;
  card->dirs[static_cast<std::size_t>(Dir::Card)] = open_dir(card_dir);
  card->dirs[static_cast<std::size_t>(Dir::Freq)] = open_dir(device / "tile0/gt0/freq0");
  card->dirs[static_cast<std::size_t>(Dir::Throttle)] =
      open_dir(driver == "xe" ? device / "tile0/gt0/freq0/throttle" : card_dir / "gt/gt0");
  const fs::path hwmon = find_hwmon(device, driver);
  if (!hwmon.empty()) card->dirs[static_cast<std::size_t>(Dir::Hwmon)] = open_dir(hwmon);

  DeviceInfo& info = card->info;
  info.backend = "intel";
  info.vendor = "Intel";
  info.pci_bus_id = bus_id;
  // No marketing name in sysfs (the kernel's tables of names are not
  // exported): named from the PCI id as lspci does.
  info.name = pci_names::device_name(device, share_root, pci_names::kIntelVendor, "Intel");
  choose_files(hwmon, *card);
  if (driver == "xe" && !card->integrated) {
    card->vram_total_bytes = xe_vram_total_bytes(device);
    if (card->vram_total_bytes) info.static_values.set(DM::MemTotalBytes, *card->vram_total_bytes);
  }
  Round status(*card, card->slow_buf);
  // A suspended GPU is probed by which files exist; its maximum stays unknown.
  if (!status.asleep()) {
    read_static_facts(*card);
    probe(*card);
  }
  list_supported(*card);
  return card;
}

}  // namespace
}  // namespace intel

IntelBackend::IntelBackend(const SystemPaths& paths, std::shared_ptr<DrmScanPerRound> drm_scans)
    : SysfsCardBackend(paths.procfs_root, std::move(drm_scans)) {}

std::unique_ptr<IntelBackend> IntelBackend::open(const SystemPaths& paths, std::string& why_not,
                                                 std::shared_ptr<DrmScanPerRound> drm_scans) {
  std::unique_ptr<IntelBackend> backend(new IntelBackend(paths, std::move(drm_scans)));
  std::vector<std::string> other_driver;  // vfio-pci (passed to a VM), none
  for (const drm_cards::FoundCard& found :
       drm_cards::find_cards(paths.sysfs_root, intel::kIntelVendorId, {"i915", "xe"}, other_driver)) {
    std::unique_ptr<Device> card = intel::open_card(found.card_dir, found.driver, found.pci_bus_id, paths.share_root);
    if (card) backend->add_card(std::move(card));
  }
  if (!backend->has_cards()) {
    if (!other_driver.empty()) why_not = "Intel: no GPU driven by i915 or xe (" + drm_cards::join(other_driver) + ")";
    return nullptr;
  }
  return backend;
}

bool IntelBackend::read_fast_values(SysfsCard& base, DeviceValues& values) {
  auto& card = static_cast<Device&>(base);
  intel::Round round(card, card.fast_buf);
  if (round.asleep()) {
    card.last_energy_uj.reset();
  } else {
    intel::read_power(round, card, values);
  }
  if (card.vram_total_bytes) values.set(DeviceMetric::MemTotalBytes, *card.vram_total_bytes);
  for (const auto& [metric, value] : {std::pair{DeviceMetric::GpuUtilPercent, &card.scan_util},
                                      std::pair{DeviceMetric::MemUsedBytes, &card.scan_mem_used}}) {
    if (const double v = value->load(std::memory_order_relaxed); !std::isnan(v)) values.set(metric, v);
  }
  return !round.failed();
}

bool IntelBackend::read_slow_values(SysfsCard& base, const SlowReadPlan& plan, DeviceValues& values) {
  auto& card = static_cast<Device&>(base);
  intel::Round round(card, card.slow_buf);
  if (!round.asleep()) intel::read_slow_values(round, card, plan, values);
  return !round.failed();
}

void IntelBackend::read_scan(SysfsCard& base, const DrmScan& scan, DeviceValues& values,
                            std::vector<GpuProcess>* processes) {
  auto& card = static_cast<Device&>(base);
  const intel::CardUse use = intel::card_use(scan, card.info.pci_bus_id, card.driver);
  card.scan_util.store(use.busiest_percent.value_or(kNaN), std::memory_order_relaxed);
  set_engine_class_values(use.engines, values);
  // Only the clients this user can read: a lower bound without root.
  const bool vram = !card.integrated && use.local_memory_bytes;
  card.scan_mem_used.store(vram ? static_cast<double>(*use.local_memory_bytes) : kNaN, std::memory_order_relaxed);
  if (processes == nullptr) return;
  for (GpuProcess& p : intel::processes_on(scan, card.info.pci_bus_id, card.driver, procfs_root())) {
    processes->push_back(std::move(p));
  }
}

std::unique_ptr<GpuBackend> open_intel_backend(const SystemPaths& paths,
                                               std::shared_ptr<DrmScanPerRound> drm_scans, std::string& why_not) {
  return IntelBackend::open(paths, why_not, std::move(drm_scans));
}

}  // namespace gpuwatch
