#include "live/watcher.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

std::chrono::nanoseconds from_seconds(double s) {
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(s * 1e9)));
}

}  // namespace

void check_gpu_indices(const std::vector<int>& gpus, const BackendSet& set) {
  for (int g : gpus) {
    const bool found =
        std::any_of(set.devices.begin(), set.devices.end(), [g](const DeviceInfo& d) { return d.index == g; });
    if (!found) {
      throw WatchError(fmt::format("--gpus: there is no GPU {} (this machine has {} GPU{})", g, set.devices.size(),
                                   set.devices.size() == 1 ? "" : "s"));
    }
  }
}

Watcher::Watcher(const SystemPaths& paths) : backends_(open_backends(paths)), host_(paths.procfs_root) {}

std::vector<DeviceInfo> Watcher::devices(const std::vector<int>& indices) const {
  std::vector<DeviceInfo> out;
  for (const DeviceInfo& d : backends_.devices) {
    if (std::find(indices.begin(), indices.end(), d.index) != indices.end()) out.push_back(d);
  }
  return out;
}

void Watcher::prepare(const WatchOptions& options) {
  if (running_) throw std::logic_error("Watcher::prepare while it runs");
  if (!(options.interval_s >= kMinIntervalSeconds && options.interval_s <= kMaxIntervalSeconds)) {
    throw WatchError(fmt::format("--interval must be between {} and {} seconds, not {}", kMinIntervalSeconds,
                                 kMaxIntervalSeconds, options.interval_s));
  }
  if (options.slow_interval_s != 0 && !(options.slow_interval_s >= options.interval_s &&
                                        options.slow_interval_s <= kMaxIntervalSeconds)) {
    throw WatchError(fmt::format("the slow interval must be between the interval ({} s) and {} seconds, not {}",
                                 options.interval_s, kMaxIntervalSeconds, options.slow_interval_s));
  }
  check_gpu_indices(options.gpus, backends_);
  watched_.clear();
  if (!options.no_gpus) {
    for (const DeviceInfo& d : backends_.devices) {
      if (options.gpus.empty() || std::find(options.gpus.begin(), options.gpus.end(), d.index) != options.gpus.end()) {
        watched_.push_back(d.index);
      }
    }
  }
  SamplerOptions so;
  so.interval = from_seconds(options.interval_s);
  so.slow_interval = from_seconds(options.slow_interval_s);
  so.gpus = watched_;
  so.devices = !watched_.empty();
  so.host = options.host;
  so.processes = options.processes;
  so.prime_slow_metrics = options.prime_slow_metrics;
  so.closing_sample = options.closing_sample;
  sampler_.reset();  // a previous run's, done
  sampler_ = std::make_unique<Sampler>(backends_, &host_, so);
}

void Watcher::run(std::uint64_t max_ticks) {
  if (!sampler_) throw std::logic_error("Watcher::run before prepare");
  running_ = true;
  struct Done {
    std::atomic<bool>& running;
    ~Done() { running = false; }
  } done{running_};
  sampler_->run(bus_, max_ticks);
}

void Watcher::stop() {
  if (sampler_) sampler_->stop();
}

JitterStats Watcher::jitter() const { return sampler_ ? sampler_->jitter() : JitterStats{}; }

std::chrono::nanoseconds Watcher::slow_interval() const {
  return sampler_ ? sampler_->slow_interval() : std::chrono::nanoseconds{0};
}

}  // namespace gpuwatch
