#include "protocol_lines.h"

#include <ATen/Parallel.h>
#include <torch/version.h>

#include "cuda_support.h"
#include "models.h"

#ifndef GPUWATCH_VERSION
#define GPUWATCH_VERSION "unknown"
#endif

namespace gpuwatch::bench_torch {

namespace {

std::string precision(const RunConfig& config) { return config.amp ? config.amp_dtype : "fp32"; }

std::optional<int> gpu_field(const RunConfig& config) {
  return config.cuda ? std::optional<int>(config.gpu) : std::nullopt;
}

std::string devices_json(const RunConfig& config) {
  std::string json = "[";
  if (config.cuda) {
    for (const GpuFacts& gpu : gpu_facts()) {
      if (json.size() > 1) json.push_back(',');
      json += JsonLine()
                  .field("gpu", gpu.index)
                  .field("name", gpu.name)
                  .field("memory_bytes", gpu.memory_bytes)
                  .field("multiprocessors", gpu.multiprocessors)
                  .field("compute_capability", gpu.compute_capability)
                  .str();
    }
  }
  return json + "]";
}

}  // namespace

JsonLine info_line(const RunConfig& config) {
  const std::optional<long> cudnn = config.cuda ? cudnn_version() : std::nullopt;
  return JsonLine()
      .field("type", "info")
      .field("worker", "torch")
      .field("version", GPUWATCH_VERSION)
      .field("cuda_version", config.cuda ? cuda_runtime_version() : std::nullopt)
      .field("torch_version", TORCH_VERSION)
      .field("cudnn_version", cudnn ? std::optional<std::int64_t>(*cudnn) : std::nullopt)
      .field("device", config.cuda ? "cuda" : "cpu")
      .raw_field("devices", devices_json(config))
      .field("cpu_threads", at::get_num_threads())
      .field("num_epochs", config.num_epochs)
      .field("num_batches", config.num_batches)
      .field("warmup_iterations", config.warmup)
      .field("num_workers", config.num_workers)
      .field("resnet_image_size", config.resnet_image_size);
}

JsonLine start_line(const TestSpec& spec, const RunConfig& config) {
  return JsonLine().field("type", "start").field("test_name", spec.name).field("gpu", gpu_field(config));
}

std::string describe(const TestSpec& spec, const RunConfig& config) {
  const int side = image_side(spec.model, config.resnet_image_size);
  std::string text = spec.seed_summary + "; ";
  text += spec.model == Model::simple_cnn ? "simple CNN" : "ResNet-18";
  text += " on synthetic 3x" + std::to_string(side) + "x" + std::to_string(side) + " images, batch " +
          std::to_string(spec.batch_size);
  text += spec.workload == Workload::training ? ", cross entropy and SGD with momentum 0.9"
                                              : ", eval mode without gradients";
  text += config.amp ? ", " + config.amp_dtype + " autocast" : ", fp32";
  if (config.channels_last) text += ", channels-last";
  return text + ".";
}

JsonLine result_line(const TestSpec& spec, const RunConfig& config, const std::optional<TestMeasurement>& measurement,
                     const std::optional<std::string>& error) {
  JsonLine line;
  line.field("type", "result")
      .field("test_name", spec.name)
      .field("test_type", workload_name(spec.workload))
      .field("description", describe(spec, config))
      .field("model_name", model_name(spec.model))
      .field("batch_size", spec.batch_size)
      .field("gpu", gpu_field(config));
  if (measurement && measurement->duration_seconds > 0) {
    const double seconds = measurement->duration_seconds;
    const auto iterations = static_cast<double>(measurement->iterations);
    line.field("duration_seconds", seconds)
        .field("iterations", measurement->iterations)
        .field("throughput_samples_per_second", iterations * spec.batch_size / seconds)
        .field("avg_iteration_time_ms", seconds * 1000.0 / iterations);
  } else {
    line.null_field("duration_seconds")
        .null_field("iterations")
        .null_field("throughput_samples_per_second")
        .null_field("avg_iteration_time_ms");
  }
  line.null_field("tflops")
      .null_field("gb_per_s")
      .null_field("latency_us")
      .field("peak_gpu_memory_mb", measurement ? measurement->peak_gpu_memory_mib : std::nullopt)
      .field("precision", precision(config))
      .field("amp", config.amp)
      .field("channels_last", config.channels_last)
      .field("success", !error.has_value())
      .field("error_message", error);
  return line;
}

JsonLine test_line(const TestSpec& spec, const RunConfig& config) {
  std::int64_t parameters = 0;
  for (const at::Tensor& parameter : make_model(spec.model)->parameters()) parameters += parameter.numel();
  return JsonLine()
      .field("type", "test")
      .field("test_name", spec.name)
      .field("test_type", workload_name(spec.workload))
      .field("model_name", model_name(spec.model))
      .field("batch_size", spec.batch_size)
      .field("parameters", parameters)
      .field("description", describe(spec, config));
}

}  // namespace gpuwatch::bench_torch
