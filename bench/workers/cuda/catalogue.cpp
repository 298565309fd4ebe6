#include "catalogue.h"

namespace gpuwatch::bench_cuda {

std::string_view family_keyword(Family family) {
  switch (family) {
    case Family::matmul: return "matmul";
    case Family::membw: return "membw";
    case Family::host_device: return "h2d";
    case Family::launch: return "launch";
    case Family::p2p: return "p2p";
  }
  return "";
}

std::string_view family_test_type(Family family) {
  switch (family) {
    case Family::matmul: return "matmul";
    case Family::membw: return "memory_bandwidth";
    case Family::host_device: return "host_device_bandwidth";
    case Family::launch: return "launch_latency";
    case Family::p2p: return "p2p";
  }
  return "";
}

std::optional<std::string_view> matmul_precision(TestId id) {
  switch (id) {
    case TestId::matmul_fp32: return "fp32";
    case TestId::matmul_tf32: return "tf32";
    case TestId::matmul_fp16: return "fp16";
    case TestId::matmul_bf16: return "bf16";
    case TestId::matmul_fp8: return "fp8";
    default: return std::nullopt;
  }
}

namespace {

std::string matmul_name(std::string_view precision, int size) {
  return "matmul_" + std::string(precision) + "_" + std::to_string(size);
}

}  // namespace

std::vector<TestEntry> per_gpu_tests(int matmul_size) {
  std::vector<TestEntry> tests;
  for (const TestId id : {TestId::matmul_fp32, TestId::matmul_tf32, TestId::matmul_fp16,
                          TestId::matmul_bf16, TestId::matmul_fp8}) {
    tests.push_back({id, Family::matmul, matmul_name(*matmul_precision(id), matmul_size)});
  }
  tests.push_back({TestId::membw_read, Family::membw, "membw_read"});
  tests.push_back({TestId::membw_write, Family::membw, "membw_write"});
  tests.push_back({TestId::membw_copy, Family::membw, "membw_copy"});
  tests.push_back({TestId::membw_memcpy, Family::membw, "membw_memcpy"});
  tests.push_back({TestId::h2d_pinned, Family::host_device, "h2d_pinned"});
  tests.push_back({TestId::h2d_pageable, Family::host_device, "h2d_pageable"});
  tests.push_back({TestId::d2h_pinned, Family::host_device, "d2h_pinned"});
  tests.push_back({TestId::d2h_pageable, Family::host_device, "d2h_pageable"});
  tests.push_back({TestId::launch_async, Family::launch, "launch_async"});
  tests.push_back({TestId::launch_sync, Family::launch, "launch_sync"});
  return tests;
}

std::string test_description(TestId id, int matmul_size) {
  const std::string square = std::to_string(matmul_size) + "x" + std::to_string(matmul_size);
  switch (id) {
    case TestId::matmul_fp32:
      return "Dense " + square + " fp32 matrix multiply through cuBLASLt (fp32 compute, no tensor cores).";
    case TestId::matmul_tf32:
      return "Dense " + square + " fp32 matrix multiply through cuBLASLt with tf32 tensor cores.";
    case TestId::matmul_fp16:
      return "Dense " + square + " fp16 matrix multiply through cuBLASLt, fp32 accumulate.";
    case TestId::matmul_bf16:
      return "Dense " + square + " bf16 matrix multiply through cuBLASLt, fp32 accumulate.";
    case TestId::matmul_fp8:
      return "Dense " + square +
             " fp8 (e4m3) matrix multiply through cuBLASLt, fp32 fast accumulate, bf16 output.";
    case TestId::membw_read:
      return "Device memory read bandwidth: a float4 grid-stride sum over a buffer of up to 1 GiB.";
    case TestId::membw_write:
      return "Device memory write bandwidth: a float4 grid-stride fill of a buffer of up to 1 GiB.";
    case TestId::membw_copy:
      return "Device memory copy bandwidth: a float4 grid-stride copy between two buffers of up to "
             "1 GiB, bytes read plus bytes written.";
    case TestId::membw_memcpy:
      return "Device-to-device cudaMemcpyAsync between two buffers of up to 1 GiB, bytes read plus "
             "bytes written.";
    case TestId::h2d_pinned:
      return "Host-to-device copy of 256 MiB from pinned host memory.";
    case TestId::h2d_pageable:
      return "Host-to-device copy of 256 MiB from pageable host memory.";
    case TestId::d2h_pinned:
      return "Device-to-host copy of 256 MiB into pinned host memory.";
    case TestId::d2h_pageable:
      return "Device-to-host copy of 256 MiB into pageable host memory.";
    case TestId::launch_async:
      return "Launch cost of an empty kernel: many launches queued back to back, time per launch.";
    case TestId::launch_sync:
      return "Round trip of an empty kernel: launch then wait for it, time per launch.";
  }
  return "";
}

std::string_view test_model_name(TestId id) {
  switch (id) {
    case TestId::matmul_fp32: return "cublaslt_fp32";
    case TestId::matmul_tf32: return "cublaslt_tf32";
    case TestId::matmul_fp16: return "cublaslt_fp16";
    case TestId::matmul_bf16: return "cublaslt_bf16";
    case TestId::matmul_fp8: return "cublaslt_fp8";
    case TestId::membw_read: return "read_kernel";
    case TestId::membw_write: return "write_kernel";
    case TestId::membw_copy: return "copy_kernel";
    case TestId::membw_memcpy: return "cudaMemcpyAsync";
    case TestId::h2d_pinned:
    case TestId::h2d_pageable:
    case TestId::d2h_pinned:
    case TestId::d2h_pageable: return "cudaMemcpyAsync";
    case TestId::launch_async:
    case TestId::launch_sync: return "empty_kernel";
  }
  return "";
}

std::string all_gpus_test_description(int matmul_size) {
  return "Dense " + std::to_string(matmul_size) + "x" + std::to_string(matmul_size) +
         " bf16 matrix multiply through cuBLASLt on every selected GPU at once, one host thread "
         "per GPU.";
}

std::string all_gpus_test_name(int matmul_size) {
  return matmul_name("bf16", matmul_size) + "_all";
}

std::string p2p_test_name(int from_gpu, int to_gpu) {
  return "p2p_" + std::to_string(from_gpu) + "_" + std::to_string(to_gpu);
}

std::string p2p_test_description(int from_gpu, int to_gpu) {
  return "Peer-to-peer copy of 256 MiB from GPU " + std::to_string(from_gpu) + " to GPU " +
         std::to_string(to_gpu) + ", bytes counted once.";
}

}  // namespace gpuwatch::bench_cuda
