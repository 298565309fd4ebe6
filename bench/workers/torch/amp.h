// Automatic mixed precision for a region of code, the C++ counterpart of
// Python's `with torch.autocast("cuda", dtype=...)`.
#pragma once

#include <c10/core/ScalarType.h>

namespace gpuwatch::bench_torch {

class CudaAutocast {
 public:
  // Does nothing when `enabled` is false.
  CudaAutocast(bool enabled, c10::ScalarType dtype);
  ~CudaAutocast();
  CudaAutocast(const CudaAutocast&) = delete;
  CudaAutocast& operator=(const CudaAutocast&) = delete;

 private:
  bool enabled_;
  bool was_enabled_ = false;
  c10::ScalarType previous_dtype_ = c10::ScalarType::Half;
};

}  // namespace gpuwatch::bench_torch
