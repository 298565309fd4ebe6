#include "models.h"

#include <string>
#include <vector>

#include <torch/nn/functional/pooling.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

namespace gpuwatch::bench_torch {

namespace {

namespace nn = torch::nn;

nn::Conv2d conv(int in_channels, int out_channels, int kernel, int stride, int padding, bool bias) {
  return nn::Conv2d(nn::Conv2dOptions(in_channels, out_channels, kernel).stride(stride).padding(padding).bias(bias));
}

class SimpleCnn final : public BenchModel {
 public:
  SimpleCnn()
      : conv1_(register_module("conv1", conv(3, 32, 3, 1, 1, true))),
        conv2_(register_module("conv2", conv(32, 64, 3, 1, 1, true))),
        conv3_(register_module("conv3", conv(64, 128, 3, 1, 1, true))),
        fc1_(register_module("fc1", nn::Linear(128 * 4 * 4, 256))),
        fc2_(register_module("fc2", nn::Linear(256, kNumClasses))) {}

  torch::Tensor forward(torch::Tensor x) override {
    x = torch::max_pool2d(torch::relu(conv1_(x)), 2);
    x = torch::max_pool2d(torch::relu(conv2_(x)), 2);
    x = torch::max_pool2d(torch::relu(conv3_(x)), 2);
    x = torch::relu(fc1_(x.flatten(1)));
    return fc2_(x);
  }

 private:
  nn::Conv2d conv1_, conv2_, conv3_;
  nn::Linear fc1_, fc2_;
};

class BasicBlock final : public torch::nn::Module {
 public:
  BasicBlock(int in_channels, int out_channels, int stride)
      : conv1_(register_module("conv1", conv(in_channels, out_channels, 3, stride, 1, false))),
        bn1_(register_module("bn1", nn::BatchNorm2d(out_channels))),
        conv2_(register_module("conv2", conv(out_channels, out_channels, 3, 1, 1, false))),
        bn2_(register_module("bn2", nn::BatchNorm2d(out_channels))) {
    if (stride != 1 || in_channels != out_channels) {
      down_conv_ = register_module("down_conv", conv(in_channels, out_channels, 1, stride, 0, false));
      down_bn_ = register_module("down_bn", nn::BatchNorm2d(out_channels));
    }
  }

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor out = bn1_(conv1_(x)).relu_();
    out = bn2_(conv2_(out));
    out += down_conv_ ? down_bn_(down_conv_(x)) : x;
    return out.relu_();
  }

 private:
  nn::Conv2d conv1_;
  nn::BatchNorm2d bn1_;
  nn::Conv2d conv2_;
  nn::BatchNorm2d bn2_;
  nn::Conv2d down_conv_{nullptr};
  nn::BatchNorm2d down_bn_{nullptr};
};

class ResNet18 final : public BenchModel {
 public:
  ResNet18()
      : stem_conv_(register_module("conv1", conv(3, 64, 7, 2, 3, false))),
        stem_bn_(register_module("bn1", nn::BatchNorm2d(64))),
        fc_(register_module("fc", nn::Linear(512, kNumClasses))) {
    int in_channels = 64;
    const int widths[] = {64, 128, 256, 512};
    for (int layer = 0; layer < 4; ++layer) {
      for (int block = 0; block < 2; ++block) {
        const int stride = (layer > 0 && block == 0) ? 2 : 1;
        const std::string name = "layer" + std::to_string(layer + 1) + "_" + std::to_string(block);
        blocks_.push_back(
            register_module(name, std::make_shared<BasicBlock>(in_channels, widths[layer], stride)));
        in_channels = widths[layer];
      }
    }
  }

  torch::Tensor forward(torch::Tensor x) override {
    x = stem_bn_(stem_conv_(x)).relu_();
    x = torch::max_pool2d(x, 3, 2, 1);
    for (const auto& block : blocks_) x = block->forward(x);
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return fc_(x);
  }

 private:
  nn::Conv2d stem_conv_;
  nn::BatchNorm2d stem_bn_;
  std::vector<std::shared_ptr<BasicBlock>> blocks_;
  nn::Linear fc_;
};

}  // namespace

std::shared_ptr<BenchModel> make_model(Model model) {
  if (model == Model::simple_cnn) return std::make_shared<SimpleCnn>();
  return std::make_shared<ResNet18>();
}

int image_side(Model model, int resnet_image_size) {
  return model == Model::simple_cnn ? 32 : resnet_image_size;
}

}  // namespace gpuwatch::bench_torch
