#include "analysis/bench_analysis.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "analysis/pooled.h"
#include "analysis/throttle.h"
#include "core/bytes.h"

namespace gpuwatch {

namespace {

// Samples of one column inside [start, end], scaled.
std::optional<Summary> window_summary(const std::vector<std::int64_t>& time, const std::vector<double>& column,
                                      const TestWindow& w, double scale) {
  if (column.size() != time.size()) return std::nullopt;
  const auto begin = std::lower_bound(time.begin(), time.end(), w.start_mono_ns) - time.begin();
  const auto end = std::upper_bound(time.begin(), time.end(), w.end_mono_ns) - time.begin();
  if (begin >= end) return std::nullopt;
  const std::span<const std::int64_t> t(time.data() + begin, static_cast<std::size_t>(end - begin));
  std::vector<double> v(column.begin() + begin, column.begin() + end);
  for (double& x : v) x *= scale;
  return summarize(t, v);
}

std::optional<StatBlock> block_of(std::span<const Summary* const> parts) {
  const auto pooled = pool(parts);
  if (!pooled) return std::nullopt;
  return StatBlock{pooled->min, pooled->max, pooled->mean, pooled->count};
}

bool in_test(const DeviceSeries& d, const TestWindow& w) { return !w.gpu || d.info.index == *w.gpu; }

std::optional<StatBlock> device_block(const RunData& data, const TestWindow& w, DeviceMetric m, double scale) {
  std::vector<Summary> parts;
  for (const DeviceSeries& d : data.devices) {
    if (!in_test(d, w) || static_cast<std::size_t>(m) >= d.values.size()) continue;
    if (auto s = window_summary(d.mono_ns, d.values[static_cast<std::size_t>(m)], w, scale)) parts.push_back(*s);
  }
  std::vector<const Summary*> pointers;
  for (const Summary& s : parts) pointers.push_back(&s);
  return block_of(pointers);
}

std::optional<StatBlock> host_block(const RunData& data, const TestWindow& w, HostMetric m, double scale) {
  const auto i = static_cast<std::size_t>(m);
  if (i >= data.host.values.size()) return std::nullopt;
  const auto s = window_summary(data.host.mono_ns, data.host.values[i], w, scale);
  if (!s) return std::nullopt;
  const Summary* one = &*s;
  return block_of(std::span<const Summary* const>(&one, 1));
}

}  // namespace

TestResources test_resources(const RunData& samples, const TestWindow& w) {
  TestResources r;
  r.gpu_util_percent = device_block(samples, w, DeviceMetric::GpuUtilPercent, 1);
  r.gpu_memory_mb = device_block(samples, w, DeviceMetric::MemUsedBytes, 1 / kMiB);
  r.gpu_power_watts = device_block(samples, w, DeviceMetric::PowerWatts, 1);
  r.gpu_temperature_celsius = device_block(samples, w, DeviceMetric::TempGpuCelsius, 1);
  r.cpu_percent = host_block(samples, w, HostMetric::CpuPercent, 1);
  r.system_memory_mb = host_block(samples, w, HostMetric::MemUsedBytes, 1 / kMiB);
  double sampled_s = 0;
  double throttled_s = 0;
  for (const DeviceSeries& d : samples.devices) {
    const auto m = static_cast<std::size_t>(DeviceMetric::ClockEventReasons);
    if (!in_test(d, w) || m >= d.values.size() || d.values[m].size() != d.mono_ns.size()) continue;
    const auto begin = std::lower_bound(d.mono_ns.begin(), d.mono_ns.end(), w.start_mono_ns) - d.mono_ns.begin();
    const auto end = std::upper_bound(d.mono_ns.begin(), d.mono_ns.end(), w.end_mono_ns) - d.mono_ns.begin();
    if (begin >= end) continue;
    const auto n = static_cast<std::size_t>(end - begin);
    const ThrottleReport t = throttle_time(std::span(d.mono_ns.data() + begin, n), std::span(d.values[m].data() + begin, n));
    sampled_s += t.sampled_s;
    throttled_s += t.throttled_s;
    for (const ThrottleTime& reason : t.by_reason) {
      if (reason.reason.kind == ThrottleKind::NotThrottling || reason.seconds <= 0) continue;
      const std::string name(reason.reason.name);
      if (std::find(r.throttle_reasons.begin(), r.throttle_reasons.end(), name) == r.throttle_reasons.end()) {
        r.throttle_reasons.push_back(name);
      }
    }
  }
  if (sampled_s > 0) r.throttled_percent = 100 * throttled_s / sampled_s;
  return r;
}

std::optional<GpuSpread> gpu_spread(std::span<const int> gpus, std::span<const double> values) {
  if (gpus.size() != values.size()) return std::nullopt;
  const auto balance = load_balance(values);
  if (!balance) return std::nullopt;
  GpuSpread s{std::vector<int>(gpus.begin(), gpus.end()), std::vector<double>(values.begin(), values.end()),
              balance->cv_percent, balance->band, std::nullopt};
  if (balance->straggler && balance->band != BalanceBand::Excellent) {
    double mean = 0;
    for (double v : values) mean += v / static_cast<double>(values.size());
    // A GPU that is faster than the rest is no straggler.
    if (values[*balance->straggler] < mean) s.straggler_gpu = gpus[*balance->straggler];
  }
  return s;
}

namespace {

// Dense (no sparsity) tensor-core peaks and HBM bandwidth, from NVIDIA's
// datasheets. The first name fragment that matches wins, so the more
// specific ones come first.
struct Datasheet {
  std::string_view name_part;
  std::string_view label;
  double fp32, tf32, fp16, bf16, fp8;  // TFLOP/s; 0: no such unit
  double memory_gb_per_s;
};
constexpr std::array kDatasheets{
    Datasheet{"H100 PCIe", "NVIDIA H100 PCIe", 51.2, 378, 756, 756, 1513, 2000},
    Datasheet{"H100 NVL", "NVIDIA H100 NVL", 60, 418, 835, 835, 1671, 3900},
    Datasheet{"H100", "NVIDIA H100 SXM5", 66.9, 494.7, 989.4, 989.4, 1978.9, 3350},
    Datasheet{"H200", "NVIDIA H200 SXM", 66.9, 494.7, 989.4, 989.4, 1978.9, 4800},
    Datasheet{"A100-SXM4-80GB", "NVIDIA A100 SXM4 80GB", 19.5, 156, 312, 312, 0, 2039},
    Datasheet{"A100 80GB PCIe", "NVIDIA A100 80GB PCIe", 19.5, 156, 312, 312, 0, 1935},
    Datasheet{"A100", "NVIDIA A100 40GB", 19.5, 156, 312, 312, 0, 1555},
};

const Datasheet* datasheet(std::string_view gpu_name) {
  for (const Datasheet& d : kDatasheets) {
    if (gpu_name.find(d.name_part) != std::string_view::npos) return &d;
  }
  return nullptr;
}

}  // namespace

std::optional<PeakValue> datasheet_matmul_peak(std::string_view gpu_name, std::string_view precision) {
  const Datasheet* d = datasheet(gpu_name);
  if (!d) return std::nullopt;
  double v = 0;
  if (precision == "fp32") v = d->fp32;
  if (precision == "tf32") v = d->tf32;
  if (precision == "fp16") v = d->fp16;
  if (precision == "bf16") v = d->bf16;
  if (precision == "fp8") v = d->fp8;
  if (v <= 0) return std::nullopt;
  return PeakValue{v, "TFLOP/s", fmt::format("datasheet ({})", d->label)};
}

std::optional<PeakValue> datasheet_memory_bandwidth(std::string_view gpu_name) {
  const Datasheet* d = datasheet(gpu_name);
  if (!d) return std::nullopt;
  return PeakValue{d->memory_gb_per_s, "GB/s", fmt::format("datasheet ({})", d->label)};
}

std::optional<PeakValue> pcie_link_peak(int gen, int width) {
  // GT/s per lane by generation; 8b/10b coding up to gen 2, 128b/130b after.
  constexpr std::array<double, 6> kGigatransfers{0, 2.5, 5, 8, 16, 32};
  if (gen < 1 || gen > 5 || width < 1 || width > 32) return std::nullopt;  // gen 6 codes by FLITs
  const double efficiency = gen <= 2 ? 0.8 : 128.0 / 130.0;
  const double gb_per_s = kGigatransfers[static_cast<std::size_t>(gen)] * efficiency * width / 8;
  return PeakValue{gb_per_s, "GB/s", fmt::format("PCIe gen {} x{}", gen, width)};
}

}  // namespace gpuwatch
