#include "bench/bench_run.h"

#include <algorithm>
#include <map>

namespace gpuwatch {

std::size_t BenchRun::failed_tests() const {
  return static_cast<std::size_t>(
      std::count_if(tests.begin(), tests.end(), [](const BenchTest& t) { return !t.result.success; }));
}

std::optional<TestRate> rate_of(const WorkerResult& r) {
  if (r.tflops) return TestRate{"tflops", *r.tflops};
  if (r.gb_per_s) return TestRate{"gb_per_s", *r.gb_per_s};
  if (r.throughput_samples_per_second) return TestRate{"throughput_samples_per_second", *r.throughput_samples_per_second};
  return std::nullopt;
}

namespace {

const DeviceSeries* device(const RunData& samples, std::optional<int> gpu) {
  for (const DeviceSeries& d : samples.devices) {
    if (gpu ? d.info.index == *gpu : true) return &d;
  }
  return nullptr;
}

// The link's best generation and width, as the driver states them.
std::optional<PeakValue> link_peak(const DeviceSeries& d) {
  auto stat = [&](DeviceMetric m) -> std::optional<double> {
    if (auto v = d.info.static_values.get(m)) return v;
    const auto i = static_cast<std::size_t>(m);
    if (i >= d.values.size()) return std::nullopt;
    std::optional<double> best;
    for (double v : d.values[i]) {
      if (v == v) best = std::max(best.value_or(v), v);
    }
    return best;
  };
  const auto gen = stat(DeviceMetric::PcieLinkGenMax);
  const auto width = stat(DeviceMetric::PcieLinkWidthMax);
  if (!gen || !width) return std::nullopt;
  return pcie_link_peak(static_cast<int>(*gen), static_cast<int>(*width));
}

std::optional<PeakValue> peak_for(const WorkerResult& r, const RunData& samples) {
  const DeviceSeries* d = device(samples, r.gpu);
  if (!d || !r.success) return std::nullopt;
  if (r.test_type == "matmul") return datasheet_matmul_peak(d->info.name, r.precision);
  if (r.test_type == "memory_bandwidth") return datasheet_memory_bandwidth(d->info.name);
  if (r.test_type == "host_device_bandwidth") return link_peak(*d);
  return std::nullopt;
}

// "matmul_bf16_8192_gpu3" -> "matmul_bf16_8192": the same test on another GPU.
std::string without_gpu_suffix(const std::string& name) {
  const std::size_t at = name.rfind("_gpu");
  if (at == std::string::npos || at + 4 == name.size()) return name;
  const bool digits = std::all_of(name.begin() + static_cast<std::ptrdiff_t>(at + 4), name.end(),
                                  [](char c) { return c >= '0' && c <= '9'; });
  return digits ? name.substr(0, at) : name;
}

}  // namespace

void add_peaks_and_spreads(BenchRun& run, const RunData& samples) {
  std::map<std::string, std::vector<BenchTest*>> by_test;
  for (BenchTest& t : run.tests) {
    t.peak = peak_for(t.result, samples);
    const auto rate = rate_of(t.result);
    if (t.peak && rate && t.peak->value > 0) t.percent_of_peak = 100 * rate->value / t.peak->value;
    if (t.result.gpu && t.result.success && rate) by_test[without_gpu_suffix(t.result.test_name)].push_back(&t);
  }
  for (const auto& [name, tests] : by_test) {
    if (tests.size() < 2) continue;
    std::vector<int> gpus;
    std::vector<double> values;
    for (const BenchTest* t : tests) {
      gpus.push_back(*t->result.gpu);
      values.push_back(rate_of(t->result)->value);
    }
    auto spread = gpu_spread(gpus, values);
    if (!spread) continue;
    for (BenchTest* t : tests) t->straggler = spread->straggler_gpu == t->result.gpu;
    run.spreads.push_back({name, rate_of(tests.front()->result)->metric, std::move(*spread)});
  }
}

}  // namespace gpuwatch
