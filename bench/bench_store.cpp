// Micro-benchmarks of what the recorder does for every sample it stores:
// Store::append of a DeviceSample with every metric set, plus the periodic
// flush (chunk encoding and one SQLite transaction) amortised over the
// appends, and the chunk codec on its own. See bench/README.md.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "core/metrics.h"
#include "core/sample.h"
#include "store/chunk_codec.h"
#include "store/store.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;
constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kWall0 = 1'700'000'000 * kSecond;

// A scratch directory removed with everything in it at the end of scope.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "gpuwatch-bench-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

DeviceInfo device_info(int index) {
  DeviceInfo d;
  d.index = index;
  d.backend = "nvml";
  d.vendor = "NVIDIA";
  d.name = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-bench-" + std::to_string(index);
  d.pci_bus_id = "00000000:18:00.0";
  d.driver_version = "580.95.05";
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) d.supported.push_back(static_cast<DeviceMetric>(m));
  d.static_values.set(DeviceMetric::SmClockMaxMhz, 1980);
  d.static_values.set(DeviceMetric::MemTotalBytes, 85520809984.0);
  return d;
}

// Tick i of GPU `dev` at 100 Hz: every metric present, values that move like
// a busy GPU's (so the deltas are realistic, neither all-zero nor random).
DeviceSample full_sample(int dev, std::int64_t i) {
  DeviceSample s;
  s.device_index = dev;
  s.time = {5 * kSecond + i * kSecond / 100 + (i % 7) * 1500, kWall0 + i * kSecond / 100 + (i % 7) * 1500};
  const double util = static_cast<double>((i * 37 + dev * 11) % 101);
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) s.values.set(static_cast<DeviceMetric>(m), 1.0);
  s.values.set(DeviceMetric::GpuUtilPercent, util);
  s.values.set(DeviceMetric::MemUtilPercent, util / 2);
  s.values.set(DeviceMetric::MemUsedBytes, 40e9 + static_cast<double>(i % 50) * 1048576.0);
  s.values.set(DeviceMetric::MemTotalBytes, 85520809984.0);
  s.values.set(DeviceMetric::MemReservedBytes, 536870912.0);
  s.values.set(DeviceMetric::PowerWatts, 120.0 + 5.8 * util);
  s.values.set(DeviceMetric::PowerLimitWatts, 700.0);
  s.values.set(DeviceMetric::EnergyJoules, 100000.0 + static_cast<double>(i) * 4.123);
  s.values.set(DeviceMetric::TempGpuCelsius, 34.0 + util / 5);
  s.values.set(DeviceMetric::TempMemCelsius, 42.0 + util / 8);
  s.values.set(DeviceMetric::SmClockMhz, util > 50 ? 1980.0 : 1755.0);
  s.values.set(DeviceMetric::MemClockMhz, 2619.0);
  s.values.set(DeviceMetric::SmClockMaxMhz, 1980.0);
  s.values.set(DeviceMetric::MemClockMaxMhz, 2619.0);
  s.values.set(DeviceMetric::FanPercent, 30.0);
  s.values.set(DeviceMetric::PerfState, 0.0);
  s.values.set(DeviceMetric::ClockEventReasons, util > 90 ? 4.0 : 0.0);
  s.values.set(DeviceMetric::PcieLinkGen, 5.0);
  s.values.set(DeviceMetric::PcieLinkWidth, 16.0);
  s.values.set(DeviceMetric::PcieLinkGenMax, 5.0);
  s.values.set(DeviceMetric::PcieLinkWidthMax, 16.0);
  s.values.set(DeviceMetric::PcieTxBytesPerSec, 1024000.0 + util * 1000);
  s.values.set(DeviceMetric::PcieRxBytesPerSec, 2048000.0 + util * 1000);
  s.values.set(DeviceMetric::SlowReadAgeSeconds, 0.012345);
  return s;
}

// One iteration = one sampler tick: a full DeviceSample per GPU (range(0)
// GPUs), flushed every range(1) ticks as the recorder's once-a-second commit
// does (100 ticks = 1 s at 100 Hz). The flush cost is amortised into the
// per-tick time; items/s counts device samples.
void BM_StoreAppendFlush(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(0));
  const std::int64_t flush_every = state.range(1);
  TempDir dir;
  auto store = Store::open(dir.path() / "runs.db", false);
  std::vector<DeviceInfo> devices;
  for (int g = 0; g < gpus; ++g) devices.push_back(device_info(g));
  RunInfo run;
  run.name = "bench";
  run.command = {"sleep", "60"};
  run.interval_s = 0.01;
  store->begin_run(run, devices);

  // Prebuilt samples: the benchmark measures the store, not the sample maker.
  std::vector<DeviceSample> samples;
  for (std::int64_t i = 0; i < flush_every; ++i) {
    for (int g = 0; g < gpus; ++g) samples.push_back(full_sample(g, i));
  }
  std::int64_t tick = 0;
  std::size_t next = 0;
  for (auto _ : state) {
    for (int g = 0; g < gpus; ++g) store->append(samples[next++]);
    if (++tick % flush_every == 0) {
      store->flush();
      next = 0;
    }
  }
  store->flush();
  store->finish_run(run);
  state.SetItemsProcessed(state.iterations() * gpus);
  state.counters["flushes"] = static_cast<double>(tick / flush_every);
}
BENCHMARK(BM_StoreAppendFlush)->Args({1, 100})->Args({8, 100})->Args({8, 10})->Unit(benchmark::kMicrosecond);

// 1000 rows x 24 columns: ten seconds of one GPU at 100 Hz, every metric.
Chunk full_chunk() {
  constexpr std::size_t kRows = 1000;
  constexpr std::size_t kCols = 24;
  Chunk c;
  c.columns.assign(kCols, ChunkColumn(kRows));
  for (std::size_t r = 0; r < kRows; ++r) {
    const DeviceSample s = full_sample(0, static_cast<std::int64_t>(r));
    c.mono_ns.push_back(s.time.mono_ns);
    c.wall_ns.push_back(s.time.wall_ns);
    for (std::size_t k = 0; k < kCols; ++k) {
      const auto m = static_cast<DeviceMetric>(k);
      c.columns[k][r] = to_fixed(s.values.value_or_nan(m), info(m).scale);
    }
  }
  return c;
}

void BM_ChunkEncode(benchmark::State& state) {
  const Chunk c = full_chunk();
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto out = encode_chunk(c);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(c.rows() * c.columns.size()));
  state.counters["chunk_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ChunkEncode)->Unit(benchmark::kMicrosecond);

void BM_ChunkDecode(benchmark::State& state) {
  const Chunk c = full_chunk();
  const std::vector<std::uint8_t> blob = encode_chunk(c);
  for (auto _ : state) {
    auto back = decode_chunk(blob);
    if (!back) {
      state.SkipWithError("decode failed");
      break;
    }
    benchmark::DoNotOptimize(back->mono_ns.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(c.rows() * c.columns.size()));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(blob.size()));
}
BENCHMARK(BM_ChunkDecode)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpuwatch

BENCHMARK_MAIN();
