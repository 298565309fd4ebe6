#include "synthetic_loader.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Functions.h>

namespace gpuwatch::bench_torch {

namespace {
constexpr std::size_t kPrefetchPerWorker = 2;  // DataLoader's prefetch_factor
}

SyntheticLoader::SyntheticLoader(const BatchShape& shape, int num_workers, std::uint64_t seed)
    : shape_(shape), main_generator_(at::detail::createCPUGenerator(seed)) {
  capacity_ = kPrefetchPerWorker * static_cast<std::size_t>(num_workers);
  // One generator per worker: a shared one would serialize them on its lock,
  // where DataLoader's worker processes each have their own.
  for (int worker = 0; worker < num_workers; ++worker) {
    workers_.emplace_back([this, seed, worker] { work(seed + 1 + static_cast<std::uint64_t>(worker)); });
  }
}

SyntheticLoader::~SyntheticLoader() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  space_free_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

Batch SyntheticLoader::make(at::Generator& generator) const {
  const at::TensorOptions options = at::TensorOptions().pinned_memory(shape_.pinned);
  const std::int64_t n = shape_.batch_size;
  const std::int64_t side = shape_.side;
  Batch batch;
  // normal_ fills contiguous memory fastest, so a channels-last batch is made
  // as a contiguous NHWC array and viewed as NCHW.
  batch.images = shape_.channels_last
                     ? at::empty({n, side, side, 3}, options).normal_(0.0, 1.0, generator).permute({0, 3, 1, 2})
                     : at::empty({n, 3, side, side}, options).normal_(0.0, 1.0, generator);
  batch.labels = at::randint(shape_.num_classes, {n}, generator, options.dtype(at::kLong));
  return batch;
}

void SyntheticLoader::work(std::uint64_t seed) {
  at::Generator generator = at::detail::createCPUGenerator(seed);
  try {
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        space_free_.wait(lock, [this] { return stopping_ || ready_.size() + in_production_ < capacity_; });
        if (stopping_) return;
        ++in_production_;
      }
      Batch batch = make(generator);
      {
        const std::lock_guard lock(mutex_);
        --in_production_;
        ready_.push_back(std::move(batch));
      }
      batch_ready_.notify_one();
    }
  } catch (...) {
    {
      const std::lock_guard lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
    }
    batch_ready_.notify_all();
  }
}

Batch SyntheticLoader::next() {
  if (workers_.empty()) return make(main_generator_);
  std::unique_lock lock(mutex_);
  batch_ready_.wait(lock, [this] { return failure_ || !ready_.empty(); });
  if (failure_) std::rethrow_exception(failure_);
  Batch batch = std::move(ready_.front());
  ready_.pop_front();
  lock.unlock();
  space_free_.notify_one();
  return batch;
}

}  // namespace gpuwatch::bench_torch
