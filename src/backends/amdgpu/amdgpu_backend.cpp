#include "backends/amdgpu/amdgpu_backend.h"

#include <fcntl.h>

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "backends/amdgpu/amdgpu_gpu_metrics.h"
#include "backends/amdgpu/amdgpu_kfd.h"
#include "backends/amdgpu/amdgpu_parse.h"
#include "backends/amdgpu/amdgpu_processes.h"
#include "backends/drm_cards.h"
#include "backends/drm_fdinfo/engine_classes.h"
#include "backends/pci_names.h"
#include "backends/procfs/read_at.h"
#include "base/unique_fd.h"

#include "core/lines.h"

namespace gpuwatch {
namespace amdgpu {
namespace {

// One file that can be switched off on its own.
enum class Feature : std::uint8_t {
  RuntimeStatus,  // power/runtime_status, read first in every round
  GpuBusy, MemBusy, VramUsed, Power, PowerCap, Energy, TempGpu, TempMem, TempJunction, FanPwm, FanRpm,
  Sclk, Mclk, LinkSpeed, LinkWidth,
  GpuMetrics,     // device/gpu_metrics, the binary snapshot (amdgpu_gpu_metrics.h)
  kCount
};

}  // namespace

constexpr std::size_t kFeatureCount = static_cast<std::size_t>(Feature::kCount);

}  // namespace amdgpu

struct AmdgpuBackend::Device : SysfsCard {
  UniqueFd device_dir;
  UniqueFd hwmon_dir;  // not valid when the card has no hwmon directory
  // Each feature's file, relative to its directory.
  std::array<std::string, amdgpu::kFeatureCount> files;
  std::bitset<amdgpu::kFeatureCount> enabled;  // written during open() only
  std::optional<double> vram_total_bytes;      // read once, sent with every fast read
  double pwm_full_scale = 255;                 // pwm1_max
  double rpm_full_scale = 0;                   // fan1_max
  // The metrics that gpu_metrics gives and no file does, found at open.
  std::bitset<kDeviceMetricCount> from_gpu_metrics;
  // Its KFD topology nodes (amdgpu_kfd.h): empty without ROCm's driver side.
  std::vector<std::uint32_t> kfd_gpu_ids;
};

namespace amdgpu {
namespace {

namespace fs = std::filesystem;
using DM = DeviceMetric;
using Device = AmdgpuBackend::Device;
using drm_cards::exists_at;
using drm_cards::read_text;

constexpr std::size_t bit(Feature f) { return static_cast<std::size_t>(f); }

// The hwmon files; the others are the PCI device's.
bool in_hwmon(Feature f) {
  switch (f) {
    case Feature::Power:
    case Feature::PowerCap:
    case Feature::Energy:
    case Feature::TempGpu:
    case Feature::TempMem:
    case Feature::TempJunction:
    case Feature::FanPwm:
    case Feature::FanRpm: return true;
    default: return false;
  }
}

// The metric each feature gives: what a card supports follows from which of
// its files passed the probe.
struct FeatureMetric {
  Feature feature;
  DM metric;
};
constexpr FeatureMetric kFeatureMetrics[] = {
    {Feature::GpuBusy, DM::GpuUtilPercent},  {Feature::MemBusy, DM::MemUtilPercent},
    {Feature::VramUsed, DM::MemUsedBytes},    {Feature::Power, DM::PowerWatts},
    {Feature::PowerCap, DM::PowerLimitWatts}, {Feature::Energy, DM::EnergyJoules},
    {Feature::TempGpu, DM::TempGpuCelsius},   {Feature::TempMem, DM::TempMemCelsius},
    {Feature::TempJunction, DM::TempJunctionCelsius},
    {Feature::FanPwm, DM::FanPercent},        {Feature::FanRpm, DM::FanPercent},
    {Feature::Sclk, DM::SmClockMhz},          {Feature::Mclk, DM::MemClockMhz},
    {Feature::LinkSpeed, DM::PcieLinkGen},    {Feature::LinkWidth, DM::PcieLinkWidth},
};

constexpr std::string_view kAmdVendorId = "0x1002";

std::optional<std::int64_t> read_integer_at(int dir_fd, const std::string& name, std::string& buf) {
  const std::optional<std::string_view> text = read_at(dir_fd, name.c_str(), buf);
  return text ? parse_sysfs_integer(*text) : std::nullopt;
}

int dir_of(const Device& card, Feature f) { return in_hwmon(f) ? card.hwmon_dir.get() : card.device_dir.get(); }

// One pass over a card's files by one thread. While probing (in open() only,
// before any other thread can see the card) a file that is missing or does
// not parse switches its feature off for good. Afterwards a failed read
// leaves its metric out of this round and is remembered, so that the caller
// can tell a vanished GPU from one sensor's hiccup.
class Round {
 public:
  Round(Device& card, std::string& buf, bool probing) : card_(card), buf_(buf), probing_(probing) {}

  template <typename Parse>
  auto read(Feature f, Parse&& parse) -> decltype(parse(std::string_view{})) {
    using Result = decltype(parse(std::string_view{}));
    if (!card_.enabled.test(bit(f))) return Result{};
    const std::optional<std::string_view> text = read_at(dir_of(card_, f), card_.files[bit(f)].c_str(), buf_);
    Result value = text ? parse(*text) : Result{};
    if (!value) {
      if (probing_) {
        card_.enabled.reset(bit(f));
      } else {
        failed_ = true;
      }
    }
    return value;
  }

  std::optional<double> number(Feature f) {
    const std::optional<std::int64_t> v = read(f, parse_sysfs_integer);
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  }

  // power/runtime_status says "suspended" (or is on its way there): every
  // sensor read would wake the GPU, which is what an idle dGPU saves power by
  // avoiding (amdgpu_top checks the same file and stops reading sensors).
  // The GPU may still suspend between this check and the reads: then one
  // round wakes it, as it would any other reader's.
  bool asleep() {
    const auto status = read(Feature::RuntimeStatus, [](std::string_view text) -> std::optional<std::string_view> {
      text = trimmed(text, kWhiteSpace);
      if (text.empty()) return std::nullopt;
      return text;
    });
    return status && (*status == "suspended" || *status == "suspending");
  }

  [[nodiscard]] bool failed() const { return failed_; }

 private:
  Device& card_;
  std::string& buf_;
  bool probing_;
  bool failed_ = false;
};

bool gpu_reads_junction(const Device& card) {
  const std::string& junction = card.files[bit(Feature::TempJunction)];
  return !junction.empty() && card.files[bit(Feature::TempGpu)] == junction;
}

// Every tick: what changes from one tick to the next and costs one small
// read each. gpu_busy_percent is the SMU firmware's own average over its
// sampling window (amdgpu_pm.c, "DOC: gpu_busy_percent").
void read_fast_values(Round& r, const Device& card, DeviceValues& out) {
  if (const auto v = r.number(Feature::GpuBusy)) out.set(DM::GpuUtilPercent, *v);
  if (const auto v = r.number(Feature::MemBusy)) out.set(DM::MemUtilPercent, *v);
  if (const auto v = r.number(Feature::VramUsed)) out.set(DM::MemUsedBytes, *v);
  if (card.vram_total_bytes) out.set(DM::MemTotalBytes, *card.vram_total_bytes);
  // Socket power in µW (on an APU it includes the CPU cores). power1_average
  // or power1_input, whichever the probe found (the driver hides the one the
  // SMU lacks: MI300X has no average, MI210 no input).
  if (const auto uw = r.number(Feature::Power)) out.set(DM::PowerWatts, *uw / 1e6);
}

// Once per slow round: values that change over seconds, and the pp_dpm
// tables, each of which costs the driver a message to the SMU.
void read_slow_values(Round& r, const Device& card, const SlowReadPlan& plan, DeviceValues& out) {
  if (plan.costly) {
    // Not costly here, but the catalogue reads energy at the costly cadence
    // for every backend (the counter is cumulative: nothing is lost).
    if (const auto uj = r.number(Feature::Energy)) out.set(DM::EnergyJoules, *uj / 1e6);
  }
  if (const auto uw = r.number(Feature::PowerCap)) out.set(DM::PowerLimitWatts, *uw / 1e6);
  const std::optional<double> junction = r.number(Feature::TempJunction);
  if (junction) out.set(DM::TempJunctionCelsius, *junction / 1000);
  // Without an edge sensor (MI300X) the GPU temperature is the junction's
  // file: one read serves both.
  const std::optional<double> gpu = gpu_reads_junction(card) ? junction : r.number(Feature::TempGpu);
  if (gpu && card.enabled.test(bit(Feature::TempGpu))) out.set(DM::TempGpuCelsius, *gpu / 1000);
  if (const auto mc = r.number(Feature::TempMem)) out.set(DM::TempMemCelsius, *mc / 1000);
  if (const auto pwm = r.number(Feature::FanPwm)) {
    out.set(DM::FanPercent, *pwm * 100 / card.pwm_full_scale);
  } else if (const auto rpm = r.number(Feature::FanRpm)) {
    out.set(DM::FanPercent, *rpm * 100 / card.rpm_full_scale);
  }
  if (const auto c = r.read(Feature::Sclk, parse_pp_dpm); c && c->current_mhz) {
    out.set(DM::SmClockMhz, *c->current_mhz);
  }
  if (const auto c = r.read(Feature::Mclk, parse_pp_dpm); c && c->current_mhz) {
    out.set(DM::MemClockMhz, *c->current_mhz);
  }
  // The link of the GPU's own PCI function. On Navi cards that function sits
  // behind the card's internal switch, so this can differ from the slot's link
  // (VENDORS.md: the same files exist on the upstream bridge).
  if (const auto gen = r.read(Feature::LinkSpeed, pcie_gen_from_speed)) out.set(DM::PcieLinkGen, *gen);
  if (const auto width = r.number(Feature::LinkWidth)) out.set(DM::PcieLinkWidth, *width);
}

// gpu_metrics in a layout this reader knows; nullopt otherwise (a round
// without it, or a feature switched off while probing).
std::optional<GpuMetrics> known_gpu_metrics(std::string_view text) {
  const auto bytes = std::span(reinterpret_cast<const unsigned char*>(text.data()), text.size());
  std::optional<GpuMetrics> m = parse_gpu_metrics(bytes);
  if (!m || !m->known_layout) return std::nullopt;
  return m;
}

// Once per slow round, after the files: the metrics that only gpu_metrics
// gives on this card. Where a file and gpu_metrics both have a metric, the
// file wins: gpu_busy_percent, the hwmon sensors and pp_dpm_* are read from
// the same SMU metrics table that fills gpu_metrics (amdgpu_pm.c and the
// swsmu *_ppt.c read_sensor paths), busy and power are read every tick
// while gpu_metrics is read once a slow round, and a file's meaning is the
// one the kernel documents. Where they do differ is the clock: pp_dpm_sclk
// marks a DPM level, current_gfxclk is the measured clock of the first
// XCC; gpuwatch keeps the level where the table exists. amdgpu_top prefers
// gpu_metrics' activity; here the two are the same firmware average.
// Reading gpu_metrics costs the driver an SMU table transfer on some
// ASICs (cached for a few ms), so it stays off the fast path, and a card
// whose files give everything gpu_metrics would does not read it at all.
void read_gpu_metrics(Round& r, const Device& card, const SlowReadPlan& plan, DeviceValues& out) {
  const std::optional<GpuMetrics> m = r.read(Feature::GpuMetrics, known_gpu_metrics);
  if (!m) return;
  const DeviceValues snapshot = device_values_of(*m);
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    const auto metric = static_cast<DM>(i);
    if (!card.from_gpu_metrics.test(i) || !snapshot.has(metric)) continue;
    // The energy counter at the catalogue's costly cadence, as from hwmon.
    if (metric == DM::EnergyJoules && !plan.costly) continue;
    out.set(metric, *snapshot.get(metric));
  }
}

// The hwmon directory the driver registered ("name" is "amdgpu"), or the
// only one there is.
fs::path find_hwmon(const fs::path& device) {
  fs::path first;
  std::error_code ec;
  for (fs::directory_iterator it(device / "hwmon", ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->path().filename().string().starts_with("hwmon")) continue;
    if (read_text(it->path() / "name") == "amdgpu") return it->path();
    if (first.empty()) first = it->path();
  }
  return first;
}

// temp<N>_input files by their label: edge, junction (hotspot) and mem. Only
// SOC15 dGPUs have junction and mem; MI300-class parts have no edge. A hwmon
// without any label is read as temp1 = edge, the one sensor every amdgpu
// part has had.
void choose_temperature_files(const fs::path& hwmon, Device& card) {
  std::string edge;
  std::string junction;
  std::string mem;
  std::error_code ec;
  for (fs::directory_iterator it(hwmon, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (!file.starts_with("temp") || !file.ends_with("_label")) continue;
    const std::string input = file.substr(0, file.size() - 6) + "_input";
    const std::optional<std::string> label = read_text(it->path());
    if (label == "edge") edge = input;
    if (label == "junction") junction = input;
    if (label == "mem") mem = input;
  }
  if (edge.empty() && junction.empty() && mem.empty() && exists_at(card.hwmon_dir.get(), "temp1_input")) {
    edge = "temp1_input";
  }
  card.files[bit(Feature::TempGpu)] = edge.empty() ? junction : edge;
  card.files[bit(Feature::TempMem)] = mem;
  card.files[bit(Feature::TempJunction)] = junction;
}

// Which file each feature reads, before any is probed.
void choose_files(const fs::path& hwmon, Device& card) {
  auto& f = card.files;
  f[bit(Feature::RuntimeStatus)] = "power/runtime_status";
  f[bit(Feature::GpuBusy)] = "gpu_busy_percent";
  f[bit(Feature::MemBusy)] = "mem_busy_percent";
  f[bit(Feature::VramUsed)] = "mem_info_vram_used";
  f[bit(Feature::Power)] = "power1_average";
  f[bit(Feature::PowerCap)] = "power1_cap";
  f[bit(Feature::Energy)] = "energy1_input";
  f[bit(Feature::FanPwm)] = "pwm1";
  f[bit(Feature::FanRpm)] = "fan1_input";
  f[bit(Feature::Sclk)] = "pp_dpm_sclk";
  f[bit(Feature::Mclk)] = "pp_dpm_mclk";
  f[bit(Feature::LinkSpeed)] = "current_link_speed";
  f[bit(Feature::LinkWidth)] = "current_link_width";
  f[bit(Feature::GpuMetrics)] = "gpu_metrics";
  if (!hwmon.empty()) choose_temperature_files(hwmon, card);
  for (std::size_t i = 0; i < kFeatureCount; ++i) {
    card.enabled.set(i, exists_at(dir_of(card, static_cast<Feature>(i)), f[i]));
  }
  // "Not all products support both" (amdgpu_pm.c): the one that exists.
  if (!card.enabled.test(bit(Feature::Power))) {
    f[bit(Feature::Power)] = "power1_input";
    card.enabled.set(bit(Feature::Power), exists_at(card.hwmon_dir.get(), f[bit(Feature::Power)]));
  }
}

// Maximum clocks and link, total VRAM: read once, from an awake GPU.
void read_static_facts(Device& card, std::string& buf) {
  const int dir = card.device_dir.get();
  DeviceValues& s = card.info.static_values;
  if (const auto bytes = read_integer_at(dir, "mem_info_vram_total", buf)) {
    card.vram_total_bytes = static_cast<double>(*bytes);
    s.set(DM::MemTotalBytes, *card.vram_total_bytes);
  }
  const auto max_clock = [&](const char* file, DM metric) {
    const std::optional<std::string_view> text = read_at(dir, file, buf);
    const std::optional<DpmClocks> clocks = text ? parse_pp_dpm(*text) : std::nullopt;
    if (clocks) s.set(metric, clocks->max_mhz);
  };
  max_clock("pp_dpm_sclk", DM::SmClockMaxMhz);
  max_clock("pp_dpm_mclk", DM::MemClockMaxMhz);
  const std::optional<std::string_view> speed = read_at(dir, "max_link_speed", buf);
  if (const std::optional<int> gen = speed ? pcie_gen_from_speed(*speed) : std::nullopt) {
    s.set(DM::PcieLinkGenMax, *gen);
  }
  if (const auto width = read_integer_at(dir, "max_link_width", buf)) s.set(DM::PcieLinkWidthMax, static_cast<double>(*width));
  // The fan's full scale: pwm1 runs 0..pwm1_max (255); fan1_input is in
  // RPM, a percentage only against fan1_max.
  if (const auto pwm_max = read_integer_at(card.hwmon_dir.get(), "pwm1_max", buf); pwm_max && *pwm_max > 0) {
    card.pwm_full_scale = static_cast<double>(*pwm_max);
  }
  if (const auto rpm_max = read_integer_at(card.hwmon_dir.get(), "fan1_max", buf); rpm_max && *rpm_max > 0) {
    card.rpm_full_scale = static_cast<double>(*rpm_max);
  }
}

// What gpu_metrics adds to the files that passed the probe; nothing (and
// the file is not read again) when it adds nothing or is not a layout this
// reader knows.
void probe_gpu_metrics(Round& round, Device& card) {
  const std::optional<GpuMetrics> m = round.read(Feature::GpuMetrics, known_gpu_metrics);
  if (!m) return;
  std::bitset<kDeviceMetricCount> from_files;
  for (const FeatureMetric& fm : kFeatureMetrics) {
    if (card.enabled.test(bit(fm.feature))) from_files.set(static_cast<std::size_t>(fm.metric));
  }
  const DeviceValues snapshot = device_values_of(*m);
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    if (snapshot.has(static_cast<DM>(i)) && !from_files.test(i)) card.from_gpu_metrics.set(i);
  }
  if (card.from_gpu_metrics.none()) card.enabled.reset(bit(Feature::GpuMetrics));
}

// Reads every file once; those that do not parse are switched off.
void probe(Device& card) {
  Round round(card, card.slow_buf, /*probing=*/true);
  if (card.rpm_full_scale <= 0) card.enabled.reset(bit(Feature::FanRpm));
  DeviceValues ignored;
  // power1_average may exist and still fail (the SMU lacks the sensor):
  // then power1_input.
  if (card.enabled.test(bit(Feature::Power)) && !round.number(Feature::Power) &&
      card.files[bit(Feature::Power)] == "power1_average") {
    card.files[bit(Feature::Power)] = "power1_input";
    card.enabled.set(bit(Feature::Power), exists_at(card.hwmon_dir.get(), card.files[bit(Feature::Power)]));
  }
  read_fast_values(round, card, ignored);
  read_slow_values(round, card, SlowReadPlan{}, ignored);
  if (card.enabled.test(bit(Feature::FanPwm))) card.enabled.reset(bit(Feature::FanRpm));
  if (gpu_reads_junction(card) && !card.enabled.test(bit(Feature::TempJunction))) {
    card.enabled.reset(bit(Feature::TempGpu));
  }
  probe_gpu_metrics(round, card);
}

// A suspended GPU at open: reading its sensors would wake it, so the probe
// goes by which files exist (done in choose_files), and the static facts
// that need an awake GPU stay unknown. A fan in RPM needs fan1_max, which
// needs the GPU: left out.
// gpu_metrics is left out too: which of its fields the card fills is known
// only from a read.
void probe_asleep(Device& card) {
  card.enabled.reset(bit(Feature::FanRpm));
  card.enabled.reset(bit(Feature::GpuMetrics));
}

void list_supported(Device& card) {
  std::bitset<kDeviceMetricCount> metrics;
  for (const FeatureMetric& fm : kFeatureMetrics) {
    if (card.enabled.test(bit(fm.feature))) metrics.set(static_cast<std::size_t>(fm.metric));
  }
  metrics |= card.from_gpu_metrics;
  // From the fdinfo scan that comes with the process list (not in bench):
  // absent until a DRM client has run on the card over two scans.
  for (const DM engine_class : kEngineClassMetrics) metrics.set(static_cast<std::size_t>(engine_class));
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (card.info.static_values.has(static_cast<DM>(m))) metrics.set(m);
  }
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (metrics.test(m)) card.info.supported.push_back(static_cast<DM>(m));
  }
}

}  // namespace
}  // namespace amdgpu

AmdgpuBackend::AmdgpuBackend(const SystemPaths& paths, std::shared_ptr<DrmScanPerRound> drm_scans)
    : SysfsCardBackend(paths.procfs_root, std::move(drm_scans)), sysfs_root_(paths.sysfs_root) {}

std::unique_ptr<AmdgpuBackend> AmdgpuBackend::open(const SystemPaths& paths, std::string& why_not,
                                                   std::shared_ptr<DrmScanPerRound> drm_scans) {
  namespace fs = std::filesystem;
  std::unique_ptr<AmdgpuBackend> backend(new AmdgpuBackend(paths, std::move(drm_scans)));
  // The DKMS driver (ROCm's amdgpu-dkms) has a version; the kernel's own has
  // none: its version is the kernel's.
  const std::string driver_version = drm_cards::read_text(paths.sysfs_root / "module/amdgpu/version").value_or("");
  // AMD GPUs with a DRM card but another driver: radeon, on GCN 1.0/1.1 parts.
  // A BMC's display (ASPEED, 0x1a03) and other vendors' cards have another
  // vendor id; an MI300X partition's extra card node hangs off a platform
  // device (amdgpu_xcp.N) with no vendor file, and is the same GPU.
  std::vector<std::string> not_amdgpu;
  for (const drm_cards::FoundCard& found :
       drm_cards::find_cards(paths.sysfs_root, amdgpu::kAmdVendorId, {"amdgpu"}, not_amdgpu)) {
    const fs::path device = found.card_dir / "device";
    const std::string& bus_id = found.pci_bus_id;
    auto card = std::make_unique<Device>();
    card->device_path = device.string();
    card->device_dir.reset(::open(device.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!card->device_dir.valid()) continue;
    const fs::path hwmon = amdgpu::find_hwmon(device);
    if (!hwmon.empty()) card->hwmon_dir.reset(::open(hwmon.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));

    DeviceInfo& info = card->info;
    info.backend = "amdgpu";
    info.vendor = "AMD";
    info.pci_bus_id = bus_id;
    info.driver_version = driver_version;
    // product_name and unique_id are what the driver read at load (board
    // FRU, SMU): reading them does not wake the GPU. Only some boards have
    // a FRU with a name (Instinct, some Radeon Pro), only some ASICs an id;
    // the others are named from their PCI id as lspci and amdgpu_top do.
    const std::string product = drm_cards::read_text(device / "product_name").value_or("");
    info.name = !product.empty() ? product
                                 : pci_names::device_name(device, paths.share_root, pci_names::kAmdVendor, "AMD");
    info.uuid = drm_cards::read_text(device / "unique_id").value_or("");

    // The KFD topology is fixed while the driver is loaded: read once.
    card->kfd_gpu_ids = amdgpu::kfd_gpu_ids_of(paths.sysfs_root, bus_id);
    amdgpu::choose_files(hwmon, *card);
    amdgpu::Round status(*card, card->slow_buf, /*probing=*/true);
    if (status.asleep()) {
      amdgpu::probe_asleep(*card);
    } else {
      amdgpu::read_static_facts(*card, card->slow_buf);
      amdgpu::probe(*card);
    }
    amdgpu::list_supported(*card);
    backend->add_card(std::move(card));
  }

  if (!backend->has_cards()) {
    if (!not_amdgpu.empty()) why_not = "AMD: no GPU driven by amdgpu (" + drm_cards::join(not_amdgpu) + ")";
    return nullptr;
  }
  return backend;
}

bool AmdgpuBackend::read_fast_values(SysfsCard& base, DeviceValues& values) {
  auto& card = static_cast<Device&>(base);
  amdgpu::Round round(card, card.fast_buf, /*probing=*/false);
  if (!round.asleep()) amdgpu::read_fast_values(round, card, values);
  return !round.failed();
}

bool AmdgpuBackend::read_slow_values(SysfsCard& base, const SlowReadPlan& plan, DeviceValues& values) {
  auto& card = static_cast<Device&>(base);
  amdgpu::Round round(card, card.slow_buf, /*probing=*/false);
  if (!round.asleep()) {
    amdgpu::read_slow_values(round, card, plan, values);
    amdgpu::read_gpu_metrics(round, card, plan, values);
  }
  return !round.failed();
}

void AmdgpuBackend::read_scan(SysfsCard& base, const DrmScan& scan, DeviceValues& values,
                              std::vector<GpuProcess>* processes) {
  auto& card = static_cast<Device&>(base);
  // The engine classes: the DRM clients only (ROCm's KFD queues are not in
  // fdinfo), while gpu_busy_percent above is the whole GPU's.
  set_engine_class_values(card_engine_use(scan, card.info.pci_bus_id, "amdgpu"), values);
  if (processes == nullptr) return;
  std::vector<GpuProcess> on_card = amdgpu::processes_on(scan, card.info.pci_bus_id, procfs_root());
  if (!card.kfd_gpu_ids.empty()) {
    amdgpu::merge_kfd_processes(on_card, amdgpu::kfd_processes(sysfs_root_, card.kfd_gpu_ids), procfs_root());
  }
  for (GpuProcess& p : on_card) {
    processes->push_back(std::move(p));
  }
}

std::unique_ptr<GpuBackend> open_amdgpu_backend(const SystemPaths& paths,
                                                std::shared_ptr<DrmScanPerRound> drm_scans, std::string& why_not) {
  return AmdgpuBackend::open(paths, why_not, std::move(drm_scans));
}

}  // namespace gpuwatch
