// Synthetic batches made on the host, as a DataLoader would hand them over:
// --num-workers threads each keep up to two batches ready (PyTorch's default
// prefetch factor), or with no workers the main thread makes each batch when
// it is asked for. On CUDA the batches are made in pinned memory so that the
// copy to the device can be asynchronous.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

namespace gpuwatch::bench_torch {

struct Batch {
  at::Tensor images;  // float, N x 3 x side x side, normal(0, 1)
  at::Tensor labels;  // int64, N, uniform in [0, num_classes)
};

struct BatchShape {
  int batch_size = 0;
  int side = 0;  // images are 3 x side x side
  int num_classes = 0;
  bool channels_last = false;  // made in NHWC order, so no conversion is needed later
  bool pinned = false;
};

class SyntheticLoader {
 public:
  SyntheticLoader(const BatchShape& shape, int num_workers, std::uint64_t seed);
  ~SyntheticLoader();
  SyntheticLoader(const SyntheticLoader&) = delete;
  SyntheticLoader& operator=(const SyntheticLoader&) = delete;

  Batch next();  // rethrows a worker's exception

 private:
  Batch make(at::Generator& generator) const;
  void work(std::uint64_t seed);

  BatchShape shape_;
  at::Generator main_generator_;  // for num_workers == 0
  std::mutex mutex_;
  std::condition_variable batch_ready_;
  std::condition_variable space_free_;
  std::deque<Batch> ready_;
  std::size_t capacity_ = 0;
  std::size_t in_production_ = 0;  // batches being made now, counted against capacity_
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::vector<std::thread> workers_;
};

}  // namespace gpuwatch::bench_torch
