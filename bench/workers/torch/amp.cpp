#include "amp.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace gpuwatch::bench_torch {

namespace {

// libtorch 2.4 made autocast per device type and deprecated the CUDA-only calls.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
bool cuda_enabled() { return at::autocast::is_autocast_enabled(at::kCUDA); }
void set_cuda_enabled(bool enabled) { at::autocast::set_autocast_enabled(at::kCUDA, enabled); }
c10::ScalarType cuda_dtype() { return at::autocast::get_autocast_dtype(at::kCUDA); }
void set_cuda_dtype(c10::ScalarType dtype) { at::autocast::set_autocast_dtype(at::kCUDA, dtype); }
#else
bool cuda_enabled() { return at::autocast::is_enabled(); }
void set_cuda_enabled(bool enabled) { at::autocast::set_enabled(enabled); }
c10::ScalarType cuda_dtype() { return at::autocast::get_autocast_gpu_dtype(); }
void set_cuda_dtype(c10::ScalarType dtype) { at::autocast::set_autocast_gpu_dtype(dtype); }
#endif

}  // namespace

CudaAutocast::CudaAutocast(bool enabled, c10::ScalarType dtype) : enabled_(enabled) {
  if (!enabled_) return;
  was_enabled_ = cuda_enabled();
  previous_dtype_ = cuda_dtype();
  set_cuda_dtype(dtype);
  set_cuda_enabled(true);
  at::autocast::increment_nesting();
}

CudaAutocast::~CudaAutocast() {
  if (!enabled_) return;
  // Casts of the weights are cached within the region; they must be dropped
  // when it closes, or the next step would run on weights from before the
  // optimizer's update.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_cuda_enabled(was_enabled_);
  set_cuda_dtype(previous_dtype_);
}

}  // namespace gpuwatch::bench_torch
