#include "workers/cuda/json_lines.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace gpuwatch::bench_cuda {
namespace {

BenchResult matmul_identity() {
  BenchResult result;
  result.test_name = "matmul_bf16_8192";
  result.family = Family::matmul;
  result.description = "Dense bf16.";
  result.model_name = "cublaslt_bf16";
  result.gpu = 0;
  result.precision = "bf16";
  return result;
}

TEST(CudaWorkerJson, SuccessfulMatmulResultHasEveryProtocolField) {
  BenchResult result = matmul_identity();
  Measurement measurement;
  measurement.iterations = 500;
  measurement.duration_seconds = 1.0;
  measurement.flops_per_iteration = 2.0 * 8192.0 * 8192.0 * 8192.0;
  measurement.peak_gpu_memory_mb = 416.0;
  record_measurement(result, measurement);
  EXPECT_EQ(result_line(result),
            R"({"type":"result","test_name":"matmul_bf16_8192","test_type":"matmul",)"
            R"("description":"Dense bf16.","model_name":"cublaslt_bf16","batch_size":null,"gpu":0,)"
            R"("duration_seconds":1,"iterations":500,"throughput_samples_per_second":null,)"
            R"("avg_iteration_time_ms":2,"tflops":549.755813888,"gb_per_s":null,"latency_us":null,)"
            R"("peak_gpu_memory_mb":416,"precision":"bf16","amp":false,"channels_last":false,)"
            R"("success":true,"error_message":null})");
}

TEST(CudaWorkerJson, FailedResultKeepsItsIdentityAndEscapesTheMessage) {
  BenchResult result = matmul_identity();
  result.gpu.reset();
  record_failure(result, "cudaMalloc of 512 MiB: out of \"memory\"\n");
  const std::string line = result_line(result);
  EXPECT_NE(line.find(R"("test_name":"matmul_bf16_8192")"), std::string::npos);
  EXPECT_NE(line.find(R"("gpu":null)"), std::string::npos);
  EXPECT_NE(line.find(R"("duration_seconds":null,"iterations":null)"), std::string::npos);
  EXPECT_NE(line.find(R"("tflops":null)"), std::string::npos);
  EXPECT_NE(line.find(R"("success":false,"error_message":"cudaMalloc of 512 MiB: out of \"memory\"\n"})"),
            std::string::npos);
  EXPECT_EQ(line.find('\n'), std::string::npos);  // one object, one line
}

TEST(CudaWorkerJson, BandwidthAndLatencyRates) {
  BenchResult copy;
  copy.family = Family::membw;
  Measurement measurement;
  measurement.iterations = 1000;
  measurement.duration_seconds = 0.5;
  measurement.bytes_per_iteration = 2e9;
  record_measurement(copy, measurement);
  ASSERT_TRUE(copy.gb_per_s.has_value());
  EXPECT_DOUBLE_EQ(*copy.gb_per_s, 4000.0);
  EXPECT_FALSE(copy.tflops.has_value());
  EXPECT_FALSE(copy.latency_us.has_value());
  EXPECT_EQ(result_summary(copy), ": 4000.0 GB/s");

  BenchResult launch;
  launch.family = Family::launch;
  launch.test_name = "launch_async";
  launch.gpu = 1;
  Measurement launches;
  launches.iterations = 400000;
  launches.duration_seconds = 1.0;
  record_measurement(launch, launches);
  ASSERT_TRUE(launch.latency_us.has_value());
  EXPECT_DOUBLE_EQ(*launch.latency_us, 2.5);
  EXPECT_DOUBLE_EQ(*launch.avg_iteration_time_ms, 0.0025);
  EXPECT_FALSE(launch.gb_per_s.has_value());
  EXPECT_EQ(result_summary(launch), "launch_async on GPU 1: 2.50 us per launch");
}

TEST(CudaWorkerJson, ZeroTimeGivesNoRatesRatherThanInfinity) {
  BenchResult result = matmul_identity();
  Measurement measurement;
  measurement.iterations = 10;
  measurement.duration_seconds = 0.0;
  measurement.flops_per_iteration = 1e12;
  record_measurement(result, measurement);
  EXPECT_FALSE(result.tflops.has_value());
  EXPECT_NE(result_line(result).find(R"("tflops":null)"), std::string::npos);
}

TEST(CudaWorkerJson, StartInfoAndErrorLines) {
  EXPECT_EQ(start_line("membw_copy", 3), R"({"type":"start","test_name":"membw_copy","gpu":3})");
  EXPECT_EQ(start_line("x", std::nullopt), R"({"type":"start","test_name":"x","gpu":null})");
  EXPECT_EQ(error_line("no CUDA device: none"), R"({"type":"error","message":"no CUDA device: none"})");

  WorkerFacts facts;
  facts.version = "0.1.0";
  facts.cuda_version = "13.0";
  facts.cublaslt_version = 130001;
  DeviceFacts device;
  device.index = 1;
  device.name = "NVIDIA H200";
  device.memory_bytes = 150754820096;
  device.compute_capability_major = 9;
  device.compute_capability_minor = 0;
  device.multiprocessor_count = 132;
  device.pci_bus_id = "0000:19:00.0";
  facts.devices.push_back(device);
  EXPECT_EQ(info_line(facts),
            R"({"type":"info","worker":"cuda","version":"0.1.0","cuda_version":"13.0",)"
            R"("cuda_driver_version":null,"cublaslt_version":130001,"torch_version":null,"device":"cuda",)"
            R"("devices":[{"gpu":1,"name":"NVIDIA H200","memory_bytes":150754820096,)"
            R"("compute_capability":"9.0","multiprocessor_count":132,"pci_bus_id":"0000:19:00.0"}]})");
}

TEST(CudaWorkerTiming, IterationsFillTheTargetWithinBounds) {
  EXPECT_EQ(iterations_for(1.0, 0.125, 4, 1000), 32);
  EXPECT_EQ(iterations_for(1.0, 0.3, 1, 1000), 4);    // rounds up: at least the target
  EXPECT_EQ(iterations_for(0.3, 2.0, 1, 1000), 1);    // one step longer than the target
  EXPECT_EQ(iterations_for(1.0, 1e-9, 1, 1000), 1000);
  EXPECT_EQ(iterations_for(1.0, 0.0, 1, 1000), 1000);  // a pilot that measured nothing
  EXPECT_EQ(iterations_for(1.0, std::numeric_limits<double>::quiet_NaN(), 1, 1000), 1000);
}

TEST(CudaWorkerTiming, CudaVersionText) {
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(12080), "12.8");
  EXPECT_EQ(cuda_version_string(11040), "11.4");
}

}  // namespace
}  // namespace gpuwatch::bench_cuda
