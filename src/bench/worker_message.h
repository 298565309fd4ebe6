// What the load-test workers (bench/workers/: CUDA micro-benchmarks, the
// libtorch model suite) say on stdout, one JSON object per line; the
// protocol is in docs/bench-workers.md. The workers are separate programs
// so that gpuwatch itself never links CUDA or torch.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch {

struct WorkerDevice {
  int index = 0;
  std::string name;
  std::optional<double> memory_bytes;
};

struct WorkerInfo {
  std::string worker;  // "cuda", "torch"
  std::string version;
  std::string device;  // "cuda", "cpu"
  std::optional<std::string> cuda_version;
  std::optional<std::string> torch_version;
  std::vector<WorkerDevice> devices;
};

// One test's outcome as the worker measured it. Absent values stay absent.
struct WorkerResult {
  std::string test_name;
  std::string test_type;
  std::string description;
  std::string model_name;
  std::optional<int> batch_size;
  std::optional<int> gpu;
  std::optional<double> duration_seconds;
  std::optional<double> iterations;
  std::optional<double> throughput_samples_per_second;
  std::optional<double> avg_iteration_time_ms;
  std::optional<double> tflops;
  std::optional<double> gb_per_s;
  std::optional<double> latency_us;
  std::optional<double> peak_gpu_memory_mb;
  std::string precision;
  bool amp = false;
  bool channels_last = false;
  bool success = false;
  std::string error_message;
};

struct WorkerMessage {
  enum class Kind { Info, Start, Result, Error } kind = Kind::Error;
  WorkerInfo info;        // Info
  std::string test_name;  // Start
  std::optional<int> gpu; // Start
  WorkerResult result;    // Result
  std::string message;    // Error
};

// One line of a worker's stdout. Nullopt, with the reason in `why`, for a
// line that is not a message (a worker is outside input: it may print junk).
std::optional<WorkerMessage> parse_worker_line(std::string_view line, std::string& why);

}  // namespace gpuwatch
