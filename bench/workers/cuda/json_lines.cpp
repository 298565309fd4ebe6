#include "json_lines.h"

#include <cstdio>
#include <mutex>

#include "base/json_writer.h"

namespace gpuwatch::bench_cuda {

std::string info_line(const WorkerFacts& facts) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("type", "info");
  w.field("worker", "cuda");
  w.field("version", facts.version);
  w.field("cuda_version", facts.cuda_version);
  w.field("cuda_driver_version", facts.cuda_driver_version);
  w.field("cublaslt_version", facts.cublaslt_version);
  w.field("torch_version", std::optional<std::string>());
  w.field("device", "cuda");
  w.key("devices").begin_array();
  for (const DeviceFacts& device : facts.devices) {
    w.begin_object();
    w.field("gpu", device.index);
    w.field("name", device.name);
    w.field("memory_bytes", device.memory_bytes);
    w.field("compute_capability", std::to_string(device.compute_capability_major) + "." +
                                      std::to_string(device.compute_capability_minor));
    w.field("multiprocessor_count", device.multiprocessor_count);
    w.field("pci_bus_id", device.pci_bus_id);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return out;
}

std::string start_line(std::string_view test_name, std::optional<int> gpu) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("type", "start");
  w.field("test_name", test_name);
  w.field("gpu", gpu);
  w.end_object();
  return out;
}

std::string result_line(const BenchResult& result) {
  const std::optional<std::int64_t> no_integer;
  const std::optional<double> no_number;
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("type", "result");
  w.field("test_name", result.test_name);
  w.field("test_type", family_test_type(result.family));
  w.field("description", result.description);
  w.field("model_name", result.model_name);
  w.field("batch_size", no_integer);
  w.field("gpu", result.gpu);
  w.field("duration_seconds", result.duration_seconds);
  w.field("iterations", result.iterations);
  w.field("throughput_samples_per_second", no_number);
  w.field("avg_iteration_time_ms", result.avg_iteration_time_ms);
  w.field("tflops", result.tflops);
  w.field("gb_per_s", result.gb_per_s);
  w.field("latency_us", result.latency_us);
  w.field("peak_gpu_memory_mb", result.peak_gpu_memory_mb);
  w.field("precision", result.precision);
  w.field("amp", false);
  w.field("channels_last", false);
  w.field("success", result.success);
  w.field("error_message", result.error_message);
  w.end_object();
  return out;
}

std::string error_line(std::string_view message) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("type", "error");
  w.field("message", message);
  w.end_object();
  return out;
}

void emit(const std::string& line) {
  static std::mutex stdout_mutex;
  const std::lock_guard lock(stdout_mutex);
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

}  // namespace gpuwatch::bench_cuda
