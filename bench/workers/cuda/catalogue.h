// The CUDA worker's tests: their names, families and run order. Pure C++, no
// CUDA, so that flag parsing and --list are testable without the toolkit.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::bench_cuda {

// What --tests selects by keyword; a family is also the protocol's test_type.
enum class Family { matmul, membw, host_device, launch, p2p };

// Every test that runs on one GPU at a time, in run order.
enum class TestId {
  matmul_fp32,
  matmul_tf32,
  matmul_fp16,
  matmul_bf16,
  matmul_fp8,
  membw_read,
  membw_write,
  membw_copy,
  membw_memcpy,
  h2d_pinned,
  h2d_pageable,
  d2h_pinned,
  d2h_pageable,
  launch_async,
  launch_sync,
};

struct TestEntry {
  TestId id;
  Family family;
  std::string name;  // e.g. "matmul_bf16_8192", "membw_copy"
};

// The --tests keyword of a family ("matmul", "membw", "h2d", "launch", "p2p").
std::string_view family_keyword(Family family);
// The protocol's test_type of a family ("matmul", "memory_bandwidth", ...).
std::string_view family_test_type(Family family);

// The per-GPU tests in run order; matmul names carry the matrix size.
std::vector<TestEntry> per_gpu_tests(int matmul_size);

// The matmul precision of a matmul test ("fp32", "tf32", "fp16", "bf16", "fp8").
std::optional<std::string_view> matmul_precision(TestId id);

// The protocol's one-sentence description and model_name (the kernel or call
// measured) of a per-GPU test.
std::string test_description(TestId id, int matmul_size);
std::string_view test_model_name(TestId id);

// The bf16 matmul run on every selected GPU at once.
std::string all_gpus_test_name(int matmul_size);
std::string all_gpus_test_description(int matmul_size);
// Copy from GPU `from` to GPU `to`.
std::string p2p_test_name(int from_gpu, int to_gpu);
std::string p2p_test_description(int from_gpu, int to_gpu);
inline constexpr std::string_view kP2pModelName = "cudaMemcpyPeerAsync";

// Buffer sizes, also quoted by the descriptions.
inline constexpr std::size_t kMebibyte = std::size_t{1} << 20;
inline constexpr std::size_t kDeviceBufferBytes = 1024 * kMebibyte;  // membw, less if memory is short
inline constexpr std::size_t kTransferBytes = 256 * kMebibyte;       // h2d, d2h, p2p

}  // namespace gpuwatch::bench_cuda
