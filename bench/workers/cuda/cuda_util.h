// CUDA runtime helpers: every failing call becomes a BenchError (the runner
// turns it into a failed result), and every resource is released by RAII so
// that a failed test leaves nothing behind for the next one.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "json_lines.h"

namespace gpuwatch::bench_cuda {

class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "what: message (cudaErrorName)".
std::string cuda_error_text(cudaError_t status, std::string_view what);
void check_cuda(cudaError_t status, std::string_view what);

// Device memory on the device current at construction; none for 0 bytes.
class DeviceMemory {
 public:
  explicit DeviceMemory(std::size_t bytes);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* data() const { return data_; }
  template <typename T>
  T* as() const { return static_cast<T*>(data_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  int device_ = 0;
};

// Page-locked host memory.
class PinnedMemory {
 public:
  explicit PinnedMemory(std::size_t bytes);
  ~PinnedMemory();
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

// A stream of its own, so that nothing else the process does is timed.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// The current device's free memory, in bytes.
std::size_t free_device_memory();

// The device memory a test took: free memory before its allocations minus
// free memory after them (cudaMemGetInfo), in MiB.
class MemoryProbe {
 public:
  MemoryProbe() : free_before_(free_device_memory()) {}
  double used_mb() const;

 private:
  std::size_t free_before_;
};

// Makes `gpu` current and creates its context, so that the context's own
// memory is not charged to the first test.
void use_device(int gpu);

DeviceFacts device_facts(int gpu);
int compute_capability(int gpu);  // 90 for 9.0
int multiprocessor_count();       // of the current device

}  // namespace gpuwatch::bench_cuda
