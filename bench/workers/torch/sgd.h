// SGD with momentum 0.9 as PyTorch 2's Python optimizer runs it on CUDA by
// default: multi-tensor (_foreach) kernels, a few launches per step for the
// whole model. torch::optim::SGD in C++ updates one parameter at a time, which
// costs several kernel launches per parameter; the reference script would then
// do less work per step than this worker, and the comparison would be unfair.
#pragma once

#include <vector>

#include <ATen/core/Tensor.h>

namespace gpuwatch::bench_torch {

class SgdMomentum {
 public:
  SgdMomentum(std::vector<at::Tensor> parameters, double learning_rate, double momentum);

  // Drops the gradients (set to None, PyTorch 2's default) rather than
  // zeroing them, which saves a kernel per parameter.
  void zero_grad();
  void step();

 private:
  std::vector<at::Tensor> parameters_;
  std::vector<at::Tensor> momentum_buffers_;  // empty until the first step
  double learning_rate_;
  double momentum_;
};

}  // namespace gpuwatch::bench_torch
