#include "sgd.h"

#include <ATen/Functions.h>
#include <torch/utils.h>

namespace gpuwatch::bench_torch {

SgdMomentum::SgdMomentum(std::vector<at::Tensor> parameters, double learning_rate, double momentum)
    : parameters_(std::move(parameters)), learning_rate_(learning_rate), momentum_(momentum) {}

void SgdMomentum::zero_grad() {
  for (at::Tensor& parameter : parameters_) parameter.mutable_grad().reset();
}

void SgdMomentum::step() {
  const torch::NoGradGuard no_grad;
  std::vector<at::Tensor> gradients;
  gradients.reserve(parameters_.size());
  for (const at::Tensor& parameter : parameters_) gradients.push_back(parameter.grad());
  if (momentum_buffers_.empty()) {
    for (const at::Tensor& gradient : gradients) momentum_buffers_.push_back(gradient.clone().detach());
  } else {
    at::_foreach_mul_(momentum_buffers_, momentum_);
    at::_foreach_add_(momentum_buffers_, gradients);
  }
  at::_foreach_add_(parameters_, momentum_buffers_, -learning_rate_);
}

}  // namespace gpuwatch::bench_torch
