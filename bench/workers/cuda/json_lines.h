// The worker protocol's JSON lines (docs/bench-workers.md): every line the
// worker writes on stdout is made here. Pure C++.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace gpuwatch::bench_cuda {

struct DeviceFacts {
  int index = 0;
  std::string name;
  std::uint64_t memory_bytes = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessor_count = 0;
  std::string pci_bus_id;  // how gpuwatch matches a CUDA index to an NVML device
};

struct WorkerFacts {
  std::string version;
  std::optional<std::string> cuda_version;         // runtime the worker was built with
  std::optional<std::string> cuda_driver_version;  // highest the driver supports
  std::optional<std::int64_t> cublaslt_version;
  std::vector<DeviceFacts> devices;
};

std::string info_line(const WorkerFacts& facts);
std::string start_line(std::string_view test_name, std::optional<int> gpu);
std::string result_line(const BenchResult& result);
std::string error_line(std::string_view message);

// Writes one line and a newline to stdout and flushes, so that gpuwatch sees
// each line as it happens; whole lines even when several threads write.
void emit(const std::string& line);

}  // namespace gpuwatch::bench_cuda
