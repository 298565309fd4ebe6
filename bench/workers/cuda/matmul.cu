// Dense matmul throughput through cuBLASLt with a heuristic-chosen algorithm
// and a workspace, as torch does.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <string>

#include "cuda_util.h"
#include "micro_tests.h"

namespace gpuwatch::bench_cuda {

namespace {

// What torch gives cuBLASLt on Hopper.
constexpr std::size_t kWorkspaceBytes = 32 * kMebibyte;

void check_cublas(cublasStatus_t status, std::string_view what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  (void)cudaGetLastError();
  throw BenchError(std::string(what) + ": " + cublasLtGetStatusString(status) + " (" +
                   cublasLtGetStatusName(status) + ")");
}

template <typename Handle, cublasStatus_t (*Destroy)(Handle)>
class LtObject {
 public:
  LtObject() = default;
  ~LtObject() {
    if (handle_ != nullptr) (void)Destroy(handle_);
  }
  LtObject(const LtObject&) = delete;
  LtObject& operator=(const LtObject&) = delete;
  Handle* out() { return &handle_; }
  Handle get() const { return handle_; }

 private:
  Handle handle_ = nullptr;
};

using LtHandle = LtObject<cublasLtHandle_t, cublasLtDestroy>;
using LtMatmulDesc = LtObject<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using LtLayout = LtObject<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using LtPreference = LtObject<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

struct MatmulTypes {
  cudaDataType_t inputs;  // A and B
  cudaDataType_t output;  // C and D
  cublasComputeType_t compute;
  std::size_t input_bytes;
  std::size_t output_bytes;
  // cuBLASLt's fp8 kernels take only A transposed and B not ("TN").
  bool transpose_a;
};

MatmulTypes matmul_types(std::string_view precision) {
  if (precision == "fp32") return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4, false};
  if (precision == "tf32") return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4, false};
  if (precision == "fp16") return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2, false};
  if (precision == "bf16") return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2, false};
  if (precision == "fp8") return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1, 2, true};
  throw BenchError("unknown matmul precision " + std::string(precision));
}

// Values in [-1, 1) from a hash of the index: zeros would let the chip idle
// its multipliers and clock higher than on real data.
template <typename T>
__global__ void fill_uniform(T* data, std::size_t count, std::uint32_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    const float value = static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
    data[i] = static_cast<T>(value);
  }
}

template <typename T>
void launch_fill(void* data, std::size_t count, std::uint32_t seed, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>(multiprocessor_count()) * 4u;
  fill_uniform<T><<<blocks, 256, 0, stream>>>(static_cast<T*>(data), count, seed);
  check_cuda(cudaGetLastError(), "launching the matrix fill");
}

void fill_matrix(void* data, cudaDataType_t type, std::size_t count, std::uint32_t seed,
                 cudaStream_t stream) {
  switch (type) {
    case CUDA_R_32F: return launch_fill<float>(data, count, seed, stream);
    case CUDA_R_16F: return launch_fill<__half>(data, count, seed, stream);
    case CUDA_R_16BF: return launch_fill<__nv_bfloat16>(data, count, seed, stream);
    case CUDA_R_8F_E4M3: return launch_fill<__nv_fp8_e4m3>(data, count, seed, stream);
    default: throw BenchError("no fill for this matrix type");
  }
}

template <typename T>
void set_attribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value,
                   std::string_view what) {
  check_cublas(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)), what);
}

}  // namespace

Measurement run_matmul(int gpu, std::string_view precision, int size, const TimingPlan& plan) {
  const MatmulTypes types = matmul_types(precision);
  use_device(gpu);
  const MemoryProbe probe;
  const auto n = static_cast<std::uint64_t>(size);
  const std::size_t elements = n * n;
  const DeviceMemory a(elements * types.input_bytes);
  const DeviceMemory b(elements * types.input_bytes);
  const DeviceMemory d(elements * types.output_bytes);
  const DeviceMemory workspace(kWorkspaceBytes);
  const DeviceMemory scale(sizeof(float));
  const Stream stream;

  fill_matrix(a.data(), types.inputs, elements, 1u, stream.get());
  fill_matrix(b.data(), types.inputs, elements, 2u, stream.get());
  check_cuda(cudaMemsetAsync(d.data(), 0, d.bytes(), stream.get()), "cudaMemsetAsync");
  const float one = 1.0f;
  check_cuda(cudaMemcpyAsync(scale.data(), &one, sizeof(one), cudaMemcpyHostToDevice, stream.get()),
             "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(stream.get()), "filling the matrices");

  LtHandle handle;
  check_cublas(cublasLtCreate(handle.out()), "cublasLtCreate");
  LtMatmulDesc desc;
  check_cublas(cublasLtMatmulDescCreate(desc.out(), types.compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
  // Square matrices, column-major, leading dimension n: only op(A) differs.
  const cublasOperation_t op_a = types.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = CUBLAS_OP_N;
  set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSA, op_a, "setting TRANSA");
  set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSB, op_b, "setting TRANSB");
  if (types.inputs == CUDA_R_8F_E4M3) {
    // Unit scales (fp8 data needs them, even when they change nothing) and
    // fast accumulation, the mode fp8 training and inference use for speed.
    const void* scale_pointer = scale.data();
    set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, scale_pointer, "setting the A scale");
    set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, scale_pointer, "setting the B scale");
    const std::int8_t fast_accumulate = 1;
    set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast_accumulate, "setting FAST_ACCUM");
  }
  const auto ld = static_cast<std::int64_t>(n);
  LtLayout layout_a;
  LtLayout layout_b;
  LtLayout layout_d;
  check_cublas(cublasLtMatrixLayoutCreate(layout_a.out(), types.inputs, n, n, ld), "layout of A");
  check_cublas(cublasLtMatrixLayoutCreate(layout_b.out(), types.inputs, n, n, ld), "layout of B");
  check_cublas(cublasLtMatrixLayoutCreate(layout_d.out(), types.output, n, n, ld), "layout of C and D");

  LtPreference preference;
  check_cublas(cublasLtMatmulPreferenceCreate(preference.out()), "cublasLtMatmulPreferenceCreate");
  const std::uint64_t workspace_bytes = kWorkspaceBytes;
  check_cublas(cublasLtMatmulPreferenceSetAttribute(preference.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &workspace_bytes, sizeof(workspace_bytes)),
               "setting the workspace size");
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  check_cublas(cublasLtMatmulAlgoGetHeuristic(handle.get(), desc.get(), layout_a.get(), layout_b.get(),
                                              layout_d.get(), layout_d.get(), preference.get(), 1,
                                              &heuristic, &found),
               "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) throw BenchError("cuBLASLt has no " + std::string(precision) + " algorithm on this GPU");
  check_cublas(heuristic.state, "the algorithm cuBLASLt chose");

  const float alpha = 1.0f;
  const float beta = 0.0f;
  const auto step = [&] {
    check_cublas(cublasLtMatmul(handle.get(), desc.get(), &alpha, a.data(), layout_a.get(), b.data(),
                                layout_b.get(), &beta, d.data(), layout_d.get(), d.data(), layout_d.get(),
                                &heuristic.algo, workspace.data(), kWorkspaceBytes, stream.get()),
                 "cublasLtMatmul");
  };
  Measurement measurement = measure(stream.get(), step, plan, probe.used_mb());
  const auto side = static_cast<double>(n);
  measurement.flops_per_iteration = 2.0 * side * side * side;
  return measurement;
}

}  // namespace gpuwatch::bench_cuda
