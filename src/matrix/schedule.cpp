#include "matrix/schedule.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "matrix/grid.h"

namespace gpuwatch::matrix {

std::optional<std::vector<int>> GpuPool::take(std::size_t k) {
  if (free_count() < k) return std::nullopt;
  std::vector<int> got;
  // Lowest index first, so that a serial matrix always runs on the same GPUs.
  for (std::size_t i = 0; i < gpus_.size() && got.size() < k; ++i) {
    if (held_[i]) continue;
    held_[i] = true;
    got.push_back(gpus_[i]);
  }
  std::sort(got.begin(), got.end());
  return got;
}

void GpuPool::give_back(std::span<const int> gpus) {
  for (const int g : gpus) {
    const auto it = std::find(gpus_.begin(), gpus_.end(), g);
    if (it != gpus_.end()) held_[static_cast<std::size_t>(it - gpus_.begin())] = false;
  }
}

std::size_t GpuPool::free_count() const {
  return static_cast<std::size_t>(std::count(held_.begin(), held_.end(), false));
}

std::size_t gpus_per_cell(int parallel, std::optional<int> asked, std::size_t gpu_count) {
  if (parallel < 1) throw GridError("--parallel must be 1 or more");
  const auto n = static_cast<std::size_t>(parallel);
  if (asked && *asked < 1) throw GridError("--gpus-per-cell must be 1 or more");
  if (!asked) {
    if (gpu_count == 0) return 0;  // no GPU: cells run, recorded without GPUs
    if (n > gpu_count) {
      throw GridError(fmt::format("--parallel {} needs at least {} GPUs, one a cell; {} found", parallel, n, gpu_count));
    }
    return parallel == 1 ? gpu_count : gpu_count / n;
  }
  const auto k = static_cast<std::size_t>(*asked);
  if (k * n > gpu_count) {
    throw GridError(fmt::format("--gpus-per-cell {} x --parallel {} = {} GPUs, but {} {} found", k, parallel, k * n,
                                gpu_count, gpu_count == 1 ? "was" : "were"));
  }
  return k;
}

std::vector<std::pair<std::string, std::string>> visible_devices_env(std::span<const int> gpus,
                                                                     std::span<const DeviceInfo> devices) {
  struct Vendor {
    std::string_view backend;
    std::string_view variable;
    std::string_view none;  // the value that shows no GPU; empty: there is none
  };
  constexpr Vendor kVendors[] = {
      {"nvml", "CUDA_VISIBLE_DEVICES", "-1"},
      {"amdgpu", "HIP_VISIBLE_DEVICES", "-1"},
      {"intel", "ZE_AFFINITY_MASK", ""},
  };
  // Devices in gpuwatch's order, which is each backend's PCI order.
  std::vector<const DeviceInfo*> sorted;
  for (const DeviceInfo& d : devices) sorted.push_back(&d);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->index < b->index; });
  std::vector<std::pair<std::string, std::string>> env;
  for (const Vendor& v : kVendors) {
    bool present = false;
    int position = 0;
    std::string list;
    for (const DeviceInfo* d : sorted) {
      if (d->backend != v.backend) continue;
      present = true;
      if (std::find(gpus.begin(), gpus.end(), d->index) != gpus.end()) {
        list += fmt::format("{}{}", list.empty() ? "" : ",", position);
      }
      ++position;
    }
    if (!present) continue;
    if (list.empty()) {
      if (v.none.empty()) continue;
      list = std::string(v.none);
    }
    env.emplace_back(v.variable, list);
    if (v.backend == "nvml") env.emplace_back("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
  }
  return env;
}

std::optional<double> eta_seconds(std::span<const double> finished_durations_s,
                                  std::span<const double> running_elapsed_s, std::size_t queued, int parallel) {
  if (finished_durations_s.empty()) return std::nullopt;
  const double mean = std::accumulate(finished_durations_s.begin(), finished_durations_s.end(), 0.0) /
                      static_cast<double>(finished_durations_s.size());
  double work = mean * static_cast<double>(queued);
  // A running cell has the mean left minus what it ran; one past the mean is
  // taken to be about to finish.
  for (const double e : running_elapsed_s) work += std::max(0.0, mean - e);
  const std::size_t cells = queued + running_elapsed_s.size();
  if (cells == 0) return 0.0;
  const auto slots = std::min<std::size_t>(static_cast<std::size_t>(std::max(parallel, 1)), cells);
  return work / static_cast<double>(slots);
}

}  // namespace gpuwatch::matrix
