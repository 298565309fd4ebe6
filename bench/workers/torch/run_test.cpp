#include "run_test.h"

#include <chrono>
#include <stdexcept>

#include <torch/cuda.h>
#include <torch/nn/functional/loss.h>
#include <torch/utils.h>

#include "amp.h"
#include "cuda_support.h"
#include "models.h"
#include "sgd.h"
#include "synthetic_loader.h"

namespace gpuwatch::bench_torch {

namespace {

constexpr double kLearningRate = 0.01;
constexpr double kMomentum = 0.9;
constexpr std::uint64_t kDataSeed = 3;  // seed 003

void to_channels_last(torch::nn::Module& model) {
  const torch::NoGradGuard no_grad;
  for (torch::Tensor& parameter : model.parameters()) {
    if (parameter.dim() == 4) parameter.set_data(parameter.contiguous(torch::MemoryFormat::ChannelsLast));
  }
}

void synchronize(const RunConfig& config) {
  if (config.cuda) torch::cuda::synchronize(config.gpu);
}

class Step {
 public:
  Step(const TestSpec& spec, const RunConfig& config)
      : training_(spec.workload == Workload::training),
        amp_(config.amp),
        amp_dtype_(config.amp_dtype == "fp16" ? torch::kHalf : torch::kBFloat16),
        device_(config.cuda ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(config.gpu))
                            : torch::Device(torch::kCPU)),
        model_(make_model(spec.model)),
        loader_(BatchShape{spec.batch_size, image_side(spec.model, config.resnet_image_size), kNumClasses,
                           config.channels_last, config.cuda},
                config.num_workers, kDataSeed) {
    model_->to(device_);
    if (config.channels_last) to_channels_last(*model_);
    model_->train(training_);
    if (training_) optimizer_.emplace(model_->parameters(), kLearningRate, kMomentum);
  }

  void run() {
    Batch batch = loader_.next();
    const torch::Tensor images = batch.images.to(device_, batch.images.scalar_type(), /*non_blocking=*/true);
    if (!training_) {
      const torch::NoGradGuard no_grad;
      const CudaAutocast autocast(amp_, amp_dtype_);
      model_->forward(images);
      return;
    }
    const torch::Tensor labels = batch.labels.to(device_, batch.labels.scalar_type(), /*non_blocking=*/true);
    optimizer_->zero_grad();
    torch::Tensor loss;
    {
      const CudaAutocast autocast(amp_, amp_dtype_);
      loss = torch::nn::functional::cross_entropy(model_->forward(images), labels);
    }
    loss.backward();
    optimizer_->step();
  }

 private:
  bool training_;
  bool amp_;
  torch::ScalarType amp_dtype_;
  torch::Device device_;
  std::shared_ptr<BenchModel> model_;
  std::optional<SgdMomentum> optimizer_;
  SyntheticLoader loader_;
};

}  // namespace

TestMeasurement run_test(const TestSpec& spec, const RunConfig& config, const std::function<void()>& on_timed_start) {
  if (config.amp && !config.cuda) {
    throw std::runtime_error("--amp needs CUDA: autocast runs on CUDA devices only");
  }
  if (config.cuda) reset_peak_memory(config.gpu);
  Step step(spec, config);
  for (int i = 0; i < config.warmup; ++i) step.run();
  synchronize(config);
  on_timed_start();
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < config.iterations(); ++i) step.run();
  synchronize(config);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  TestMeasurement measurement;
  measurement.duration_seconds = elapsed.count();
  measurement.iterations = config.iterations();
  if (config.cuda) measurement.peak_gpu_memory_mib = peak_memory_mib(config.gpu);
  return measurement;
}

}  // namespace gpuwatch::bench_torch
