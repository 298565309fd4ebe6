// Writes a long synthetic run into a store, through the same Store API the
// recorder uses (append per tick, flush once a second), so that report and
// plot can be measured at the scale DESIGN.md sets: 8 GPUs at 10 Hz for 35 h
// is about 10 million device-samples.
//
//   make_run_store --out runs.db [--gpus 8] [--hours 35] [--hz 10] [--name big]
//
// It prints the device values written (present ones) and the file's size
// per value once the store is closed: the store's size goal (issue 25).
//
// Each metric is present at its catalogue cadence (fast every tick, slow every
// second, costly every 10 s), like a real recording. The load is a training
// loop: busy steps with a short input stall every 3 s, an epoch boundary every
// 30 min with a validation dip, memory that creeps up by a few MiB per hour,
// and GPU 3 about 10 % slower than the rest.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics.h"
#include "core/sample.h"
#include "store/store.h"

namespace {

using namespace gpuwatch;

constexpr std::int64_t kSecond = 1'000'000'000;

struct Options {
  std::string out;
  int gpus = 8;
  double hours = 35;
  double hz = 10;
  std::string name = "big";
};

DeviceInfo device_info(int index) {
  DeviceInfo d;
  d.index = index;
  d.backend = "nvml";
  d.vendor = "NVIDIA";
  d.name = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-synthetic-" + std::to_string(index);
  d.pci_bus_id = "00000000:1" + std::to_string(index) + ":00.0";
  d.driver_version = "580.95.05";
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (static_cast<DeviceMetric>(m) != DeviceMetric::FanPercent) d.supported.push_back(static_cast<DeviceMetric>(m));
  }
  d.static_values.set(DeviceMetric::SmClockMaxMhz, 1980);
  d.static_values.set(DeviceMetric::MemClockMaxMhz, 2619);
  d.static_values.set(DeviceMetric::PcieLinkGenMax, 5);
  d.static_values.set(DeviceMetric::PcieLinkWidthMax, 16);
  return d;
}

// A cheap deterministic noise source: the same store on every machine.
double noise(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(state >> 11) / 9007199254740992.0;  // [0, 1)
}

DeviceSample sample_at(int gpu, std::int64_t tick, double t_s, std::uint64_t& rng, double& energy_j,
                       double interval_s) {
  DeviceSample s;
  s.device_index = gpu;
  const double in_step = std::fmod(t_s, 3.0);
  const double in_epoch = std::fmod(t_s, 1800.0);
  const bool stalled = in_step < 0.3 * (gpu == 3 ? 1.3 : 1.0);  // input wait at each step
  const bool validating = in_epoch > 1740.0;
  double util = stalled ? noise(rng) * 3 : 92 + noise(rng) * 8;
  if (validating) util *= 0.6;
  const double mem = 61e9 + t_s / 3600.0 * 4e6 + (validating ? -2e9 : 0) + noise(rng) * 64e6;
  const double power = 90 + util * 5.6 + noise(rng) * 20;
  energy_j += power * interval_s;
  auto& v = s.values;
  v.set(DeviceMetric::GpuUtilPercent, std::round(util));
  v.set(DeviceMetric::MemUtilPercent, std::round(util * 0.4));
  v.set(DeviceMetric::MemUsedBytes, std::round(mem / 1048576) * 1048576);
  v.set(DeviceMetric::MemTotalBytes, 85520809984.0);
  v.set(DeviceMetric::MemReservedBytes, 536870912.0);
  v.set(DeviceMetric::PowerWatts, std::round(power * 1000) / 1000);
  const auto per_second = static_cast<std::int64_t>(std::llround(1.0 / interval_s));
  if (per_second <= 1 || tick % per_second == 0) {
    v.set(DeviceMetric::PowerLimitWatts, 700);
    v.set(DeviceMetric::TempGpuCelsius, std::round(38 + util / 4));
    v.set(DeviceMetric::TempMemCelsius, std::round(45 + util / 5));
    v.set(DeviceMetric::SmClockMhz, util > 50 ? 1980 : 1755);
    v.set(DeviceMetric::MemClockMhz, 2619);
    v.set(DeviceMetric::PerfState, 0);
    v.set(DeviceMetric::ClockEventReasons, power > 600 ? 4 : 0);
    v.set(DeviceMetric::PcieLinkGen, util > 50 ? 5 : 1);
    v.set(DeviceMetric::PcieLinkWidth, 16);
    v.set(DeviceMetric::SlowReadAgeSeconds, 0.0004);
  }
  if (tick % (10 * std::max<std::int64_t>(per_second, 1)) == 0) {
    v.set(DeviceMetric::EnergyJoules, std::round(energy_j * 1000) / 1000);
    v.set(DeviceMetric::PcieTxBytesPerSec, std::round(2e8 + noise(rng) * 1e8));
    v.set(DeviceMetric::PcieRxBytesPerSec, std::round(6e8 + noise(rng) * 2e8));
  }
  return s;
}

HostSample host_at(double t_s, std::uint64_t& rng) {
  HostSample h;
  h.values.set(HostMetric::CpuPercent, std::round(40 + noise(rng) * 20));
  h.values.set(HostMetric::MemUsedBytes, 120e9);
  h.values.set(HostMetric::MemTotalBytes, 2015e9);
  h.values.set(HostMetric::TreeCpuPercent, std::round(800 + noise(rng) * 100));
  h.values.set(HostMetric::TreeRssBytes, 40e9 + t_s * 1e3);
  h.values.set(HostMetric::TreeProcessCount, 17);
  h.values.set(HostMetric::TreeReadBytesPerSec, std::round(noise(rng) * 5e8));
  for (int c = 0; c < 16; ++c) h.core_percent.push_back(std::round(noise(rng) * 100));
  return h;
}

int run(const Options& o) {
  auto store = Store::open(o.out, false);
  std::vector<DeviceInfo> devices;
  for (int g = 0; g < o.gpus; ++g) devices.push_back(device_info(g));
  RunInfo run;
  run.name = o.name;
  run.command = {"python", "train.py", "--synthetic"};
  run.interval_s = 1.0 / o.hz;
  store->begin_run(run, devices);
  const std::int64_t mono0 = run.start_mono_ns;
  const std::int64_t wall0 = run.start_wall_ns;
  const auto ticks = static_cast<std::int64_t>(o.hours * 3600 * o.hz);
  const auto per_second = std::max<std::int64_t>(1, std::llround(o.hz));
  std::uint64_t rng = 42;
  std::vector<double> energy(static_cast<std::size_t>(o.gpus), 1e6);
  std::uint64_t device_values = 0;  // present ones: what bytes per value divides by
  for (std::int64_t tick = 0; tick < ticks; ++tick) {
    const double t_s = static_cast<double>(tick) / o.hz;
    const auto offset_ns = static_cast<std::int64_t>(t_s * 1e9) + static_cast<std::int64_t>(noise(rng) * 2e5);
    const Timestamp when{mono0 + offset_ns, wall0 + offset_ns};
    for (int g = 0; g < o.gpus; ++g) {
      DeviceSample s = sample_at(g, tick, t_s, rng, energy[static_cast<std::size_t>(g)], 1.0 / o.hz);
      s.time = when;
      for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
        device_values += s.values.has(static_cast<DeviceMetric>(m)) ? 1 : 0;
      }
      store->append(s);
    }
    if (tick % per_second == 0) {
      HostSample h = host_at(t_s, rng);
      h.time = when;
      store->append(h);
    }
    if ((tick + 1) % per_second == 0) store->flush();
  }
  run.end_wall_ns = wall0 + static_cast<std::int64_t>(static_cast<double>(ticks) / o.hz * 1e9);
  run.exit_code = 0;
  run.end_reason = "exited";
  const auto finish_start = std::chrono::steady_clock::now();
  store->finish_run(run);  // compaction, free pages given back, rollups
  store.reset();  // the last connection checkpoints the WAL into the file
  const std::chrono::duration<double> finish_s = std::chrono::steady_clock::now() - finish_start;
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(o.out, ec);
  std::printf("%s: run %s, %lld device-samples, %llu device values; finish %.1f s; file %llu bytes, %.2f B per value\n",
              o.out.c_str(), run.id.c_str(), static_cast<long long>(ticks * o.gpus),
              static_cast<unsigned long long>(device_values), finish_s.count(),
              static_cast<unsigned long long>(ec ? 0 : bytes),
              device_values > 0 && !ec ? static_cast<double>(bytes) / static_cast<double>(device_values) : 0.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (value == nullptr) {
      std::fprintf(stderr, "make_run_store: %s needs a value\n", argv[i]);
      return 2;
    }
    if (arg == "--out") o.out = value;
    else if (arg == "--gpus") o.gpus = std::atoi(value);
    else if (arg == "--hours") o.hours = std::atof(value);
    else if (arg == "--hz") o.hz = std::atof(value);
    else if (arg == "--name") o.name = value;
    else {
      std::fprintf(stderr, "make_run_store: unknown option %s\n", argv[i]);
      return 2;
    }
    ++i;
  }
  if (o.out.empty() || o.gpus < 1 || o.gpus > 64 || !(o.hours > 0) || !(o.hz > 0) || o.hz > 1000) {
    std::fprintf(stderr, "usage: make_run_store --out FILE [--gpus 1..64] [--hours H] [--hz 0..1000] [--name NAME]\n");
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_run_store: %s\n", e.what());
    return 1;
  }
}
