#include "live/live_metrics.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/stats.h"
#include "core/bytes.h"
#include "base/json_writer.h"

namespace gpuwatch {

namespace {

// Power is integrated only across gaps shorter than this: a longer one (a
// stalled sampler, a GPU that answered nothing) is not guessed over.
constexpr std::int64_t kMaxPowerGapNs = 10'000'000'000;

struct MetricSum {
  double total = 0;
  std::size_t count = 0;
  void add(double v) {
    total += v;
    ++count;
  }
};

}  // namespace

void EnergySince::add(const DeviceSample& sample) {
  if (const auto watts = sample.values.get(DeviceMetric::PowerWatts); watts && std::isfinite(*watts)) {
    const std::int64_t dt_ns = sample.time.mono_ns - power_mono_ns_;
    if (power_w_ && dt_ns > 0 && dt_ns <= kMaxPowerGapNs) {
      integrated_j_ += (*power_w_ + *watts) / 2 * static_cast<double>(dt_ns) / 1e9;
    }
    power_w_ = *watts;
    power_mono_ns_ = sample.time.mono_ns;
  }
  if (const auto joules = sample.values.get(DeviceMetric::EnergyJoules); joules && std::isfinite(*joules)) {
    if (!first_counter_j_) {
      first_counter_j_ = *joules;
    } else if (*joules < *first_counter_j_ + counter_j_) {
      *first_counter_j_ = *joules - counter_j_;  // stepped back: go on from here
    }
    counter_j_ = *joules - *first_counter_j_;
    integrated_j_ = 0;
  }
}

std::optional<double> EnergySince::joules() const {
  if (!first_counter_j_ && !power_w_) return std::nullopt;
  return counter_j_ + integrated_j_;
}

std::vector<int> metrics_gpus(const JobGpus& job, std::span<const int> recorded) {
  if (job.known() && !job.gpus.empty()) return job.gpus;
  return {recorded.begin(), recorded.end()};
}

NamedValues live_metrics(const LiveSnapshot& snapshot, std::span<const int> gpus,
                         const std::map<int, double>& energy_j) {
  NamedValues out;
  MetricSum memory;
  MetricSum power;
  MetricSum energy;
  std::vector<double> utilization;
  for (const int i : gpus) {
    const LiveDevice* d = snapshot.device(i);
    if (d == nullptr || d->lost) continue;
    const auto& v = d->latest.values;
    if (const auto used = v.get(DeviceMetric::MemUsedBytes)) {
      out.emplace_back(fmt::format("gpu_{}_memory", i), *used / kGiB);
      memory.add(*used / kGiB);
    }
    if (const auto util = v.get(DeviceMetric::GpuUtilPercent)) {
      out.emplace_back(fmt::format("gpu_{}_utilization", i), *util);
      utilization.push_back(*util);
    }
    if (const auto watts = v.get(DeviceMetric::PowerWatts)) {
      out.emplace_back(fmt::format("gpu_{}_power", i), *watts);
      power.add(*watts);
    }
    if (const auto joules = energy_j.find(i); joules != energy_j.end()) {
      out.emplace_back(fmt::format("gpu_{}_energy", i), joules->second);
      energy.add(joules->second);
    }
  }
  if (memory.count > 0) out.emplace_back("gpu_total_memory", memory.total);
  if (!utilization.empty()) {
    double sum = 0;
    for (const double u : utilization) sum += u;
    out.emplace_back("gpu_avg_utilization", sum / static_cast<double>(utilization.size()));
  }
  if (const auto balance = load_balance(utilization)) out.emplace_back("gpu_load_balance_cv", balance->cv_percent);
  if (power.count > 0) out.emplace_back("gpu_total_power", power.total);
  if (energy.count > 0) out.emplace_back("gpu_total_energy", energy.total);
  std::erase_if(out, [](const auto& entry) { return !std::isfinite(entry.second); });
  return out;
}

std::string metrics_answer(std::int64_t id, std::span<const int> gpus, const NamedValues& values) {
  std::string out;
  JsonWriter w(out);
  w.begin_object().field("schema_version", kMetricsSchemaVersion).field("id", id);
  w.key("gpus").begin_array();
  for (const int gpu : gpus) w.value(gpu);
  w.end_array().key("metrics").begin_object();
  for (const auto& [name, value] : values) w.field(name, value);
  w.end_object().end_object();
  return out;
}

LiveMetrics::LiveMetrics(JobGpuTracker job, std::vector<int> recorded)
    : recorded_(std::move(recorded)), job_(std::move(job)) {}

void LiveMetrics::on_device_sample(const DeviceSample& sample) {
  window_.on_device_sample(sample);
  std::lock_guard lock(mutex_);
  energy_[sample.device_index].add(sample);
}

void LiveMetrics::on_processes(const std::vector<GpuProcess>& processes, Timestamp seen) {
  window_.on_processes(processes, seen);
  std::lock_guard lock(mutex_);
  job_.observe(processes);
}

std::string LiveMetrics::answer(std::int64_t request_id) const {
  const LiveSnapshot snapshot = window_.snapshot(0);
  std::vector<int> gpus;
  std::map<int, double> energy_j;
  {
    std::lock_guard lock(mutex_);
    gpus = metrics_gpus(job_.current(), recorded_);
    for (const auto& [index, energy] : energy_) {
      if (const auto joules = energy.joules()) energy_j.emplace(index, *joules);
    }
  }
  return metrics_answer(request_id, gpus, live_metrics(snapshot, gpus, energy_j));
}

}  // namespace gpuwatch
