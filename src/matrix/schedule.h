// Which GPUs a cell gets, how it is told (the runtimes' visible-devices
// variables), and when the matrix should be done. Pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/sample.h"

namespace gpuwatch::matrix {

// The GPUs the matrix may hand out, and which are held by a running cell.
class GpuPool {
 public:
  explicit GpuPool(std::vector<int> gpus) : gpus_(std::move(gpus)), held_(gpus_.size(), false) {}

  // The k lowest free GPUs, now held; nullopt (nothing taken) when fewer are
  // free. k == 0 always succeeds with none: a machine without GPUs.
  std::optional<std::vector<int>> take(std::size_t k);
  // Gives back GPUs that take() handed out; others are ignored.
  void give_back(std::span<const int> gpus);
  [[nodiscard]] std::size_t free_count() const;
  [[nodiscard]] std::size_t size() const { return gpus_.size(); }

 private:
  std::vector<int> gpus_;
  std::vector<bool> held_;
};

// --parallel and --gpus-per-cell checked against the GPUs there are.
// gpus_per_cell nullopt: all GPUs when parallel is 1, else an equal share.
// Throws GridError (a usage error) when they do not fit.
std::size_t gpus_per_cell(int parallel, std::optional<int> gpus_per_cell, std::size_t gpu_count);

// The variables that show a cell its GPUs (gpuwatch indices) and no others,
// for each vendor the machine has: CUDA_VISIBLE_DEVICES (with
// CUDA_DEVICE_ORDER=PCI_BUS_ID, so that the indices are the PCI order that
// gpuwatch uses), HIP_VISIBLE_DEVICES, ZE_AFFINITY_MASK; each with the GPU's
// position among its vendor's GPUs. A vendor none of whose GPUs the cell
// gets is hidden with "-1" (CUDA, HIP); Level Zero has no such value, so
// ZE_AFFINITY_MASK is then left alone.
std::vector<std::pair<std::string, std::string>> visible_devices_env(std::span<const int> gpus,
                                                                     std::span<const DeviceInfo> devices);

// Seconds left, from the mean duration of the finished cells: the queued
// cells and what the running ones have left, spread over `parallel` slots.
// nullopt until a cell has finished.
std::optional<double> eta_seconds(std::span<const double> finished_durations_s,
                                  std::span<const double> running_elapsed_s, std::size_t queued, int parallel);

}  // namespace gpuwatch::matrix
