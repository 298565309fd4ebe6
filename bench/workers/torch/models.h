// The two models of seed 003, written out layer by layer so that the Python
// reference (bench/reference/gpu_loadtest_reference.py) builds the same ones.
#pragma once

#include <memory>

#include <torch/nn/module.h>

#include "suite.h"

namespace gpuwatch::bench_torch {

class BenchModel : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor images) = 0;
};

inline constexpr int kNumClasses = 10;

// Simple CNN: three 3x3 conv layers (32, 64, 128 channels) each with ReLU and
// 2x2 max pooling, then fully connected 2048 -> 256 -> 10, on 3x32x32 images.
// ResNet-18-like: torchvision's resnet18 layout (7x7 stem, max pool, BasicBlocks
// [2,2,2,2] with batch norm, average pool) with a 10-class head.
std::shared_ptr<BenchModel> make_model(Model model);

// Side of the square input images: 32 for the CNN, `resnet_image_size` for
// the ResNet.
int image_side(Model model, int resnet_image_size);

}  // namespace gpuwatch::bench_torch
