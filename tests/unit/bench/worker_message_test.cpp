#include "bench/worker_message.h"

#include <gtest/gtest.h>

#include "bench/bench_file.h"

namespace gpuwatch {
namespace {

WorkerMessage parsed(std::string_view line) {
  std::string why;
  auto m = parse_worker_line(line, why);
  EXPECT_TRUE(m.has_value()) << line << ": " << why;
  return m.value_or(WorkerMessage{});
}

TEST(WorkerMessage, EveryKind) {
  const WorkerMessage info = parsed(
      R"({"type":"info","worker":"cuda","version":"1","device":"cuda","cuda_version":"13.0","torch_version":null,)"
      R"("devices":[{"gpu":0,"name":"NVIDIA H200","memory_bytes":1.5e11},{"name":"no index"},)"
      R"({"index":1,"name":"an older worker's"}]})");
  EXPECT_EQ(info.kind, WorkerMessage::Kind::Info);
  EXPECT_EQ(info.info.cuda_version, "13.0");
  EXPECT_FALSE(info.info.torch_version.has_value());
  ASSERT_EQ(info.info.devices.size(), 2u);
  EXPECT_EQ(info.info.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(info.info.devices[1].index, 1);
  const WorkerMessage start = parsed(R"({"type":"start","test_name":"p2p_0_1","gpu":null})");
  EXPECT_EQ(start.test_name, "p2p_0_1");
  EXPECT_FALSE(start.gpu.has_value());
  const WorkerMessage r = parsed(
      R"({"type":"result","test_name":"matmul_bf16_8192","test_type":"matmul","gpu":1,"batch_size":null,)"
      R"("tflops":712.5,"precision":"bf16","success":true,"error_message":null,"duration_seconds":1.02})");
  EXPECT_EQ(r.result.gpu, 1);
  EXPECT_EQ(r.result.tflops, 712.5);
  EXPECT_EQ(r.result.precision, "bf16");
  EXPECT_TRUE(r.result.success);
  EXPECT_FALSE(r.result.gb_per_s.has_value());
  EXPECT_EQ(parsed(R"({"type":"error","message":"no CUDA device"})").message, "no CUDA device");
}

TEST(WorkerMessage, JunkIsRefusedWithAReason) {
  std::string why;
  EXPECT_FALSE(parse_worker_line("Epoch 1 done", why));
  EXPECT_EQ(why, "not a JSON object");
  EXPECT_FALSE(parse_worker_line(R"({"type":"beep"})", why));
  EXPECT_NE(why.find("unknown type"), std::string::npos);
  EXPECT_FALSE(parse_worker_line(R"({"type":"result","success":true})", why));
  EXPECT_EQ(why, "a result without a test_name");
  // Values of the wrong type are absent, not errors: success must be true to count.
  const WorkerMessage r = parsed(R"({"type":"result","test_name":"x","success":"yes","gpu":-1,"tflops":"9"})");
  EXPECT_FALSE(r.result.success);
  EXPECT_FALSE(r.result.gpu.has_value());
  EXPECT_FALSE(r.result.tflops.has_value());
}

TEST(BenchFile, ReadsOursAndSeed003s) {
  const BenchFile ours = parse_bench_file(
      R"({"system_info":{"hostname":"a","gpu_names":["NVIDIA H200"]},"results":[)"
      R"({"test_name":"matmul","gpu":1,"success":true,"achieved_tflops":700,"percent_of_peak":70.7,)"
      R"("gpu_power_stats":{"min":1,"max":2,"avg":650}},)"
      R"({"test_name":"launch","gpu_index":0,"success":true,"latency_us":2.5},7]})",
      "a.json");
  EXPECT_EQ(ours.hostname, "a");
  ASSERT_EQ(ours.tests.size(), 2u);
  EXPECT_EQ(ours.tests[0].value, 700);
  EXPECT_EQ(ours.tests[0].unit, "TFLOP/s");
  EXPECT_EQ(ours.tests[0].avg_power_watts, 650);
  EXPECT_EQ(ours.tests[1].latency_us, 2.5);
  EXPECT_EQ(ours.tests[0].gpu, 1);  // "gpu" since schema_version 2
  EXPECT_EQ(ours.tests[1].gpu, 0);  // "gpu_index" before
  const BenchFile seed = parse_bench_file(
      R"({"system_info":{"gpu_names":["NVIDIA A100-SXM4-40GB"]},"results":[{"test_name":"train_simple_cnn_bs32",)"
      R"("throughput_samples_per_second":1248.3,"success":true}]})",
      "seed.json");
  EXPECT_EQ(seed.tests[0].unit, "samples/s");
  EXPECT_FALSE(seed.tests[0].gpu.has_value());
  EXPECT_THROW(parse_bench_file("[]", "x"), BenchFileError);
  EXPECT_THROW(parse_bench_file(R"({"system_info":{}})", "x"), BenchFileError);
  EXPECT_THROW(parse_bench_file("{", "x"), BenchFileError);
}

}  // namespace
}  // namespace gpuwatch
