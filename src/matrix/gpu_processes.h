// Which processes are on a cell's GPUs before it starts and after it ended,
// through the same backends that record reads: a process new on them after
// the cell (its session and marker already ended, cell_processes.h) may be
// one that left both, or another user's. Nothing proves which, so it is
// only reported (cell.json's gpu_processes_after, the summary, the log).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <vector>

#include "backends/backend.h"
#include "matrix/state.h"

namespace gpuwatch::matrix {

using GpuPids = std::map<int, std::set<std::uint32_t>>;  // by gpuwatch GPU index

class GpuProcessView {
 public:
  explicit GpuProcessView(BackendSet set) : set_(std::move(set)) {}

  [[nodiscard]] const std::vector<DeviceInfo>& devices() const { return set_.devices; }
  // The pids each of `gpus` lists now (with their names, for the report);
  // a GPU whose driver cannot say lists none.
  GpuPids pids_on(std::span<const int> gpus, std::map<std::uint32_t, std::string>* names = nullptr);

 private:
  BackendSet set_;
};

// The processes in `after` that were not in `before`, with their names.
std::vector<GpuProcessAfter> new_gpu_processes(const GpuPids& before, const GpuPids& after,
                                               const std::map<std::uint32_t, std::string>& names);

}  // namespace gpuwatch::matrix
