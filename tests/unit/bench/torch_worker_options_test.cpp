// The libtorch worker's flags, test selection and JSON lines: the parts of
// bench/workers/torch that need no torch, so they are tested in every build.
#include "bench/workers/torch/json_line.h"
#include "bench/workers/torch/options.h"
#include "bench/workers/torch/suite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace gpuwatch::bench_torch {
namespace {

ParsedOptions parse(const std::vector<std::string_view>& args) { return parse_options(args); }

TEST(TorchWorkerOptions, ReadsEveryFlagInBothSpellings) {
  const ParsedOptions parsed =
      parse({"--device", "cpu", "--gpu=1", "--num-epochs", "2", "--num-batches=7", "--warmup", "0", "--num-workers",
             "3", "--quick", "--amp", "--amp-dtype=fp16", "--channels-last", "--resnet-image-size", "96", "--tests",
             "train_,infer_resnet18", "--list"});
  ASSERT_FALSE(parsed.error) << *parsed.error;
  const Options& o = parsed.options;
  EXPECT_EQ(o.device, "cpu");
  EXPECT_EQ(o.gpu, 1);
  EXPECT_EQ(o.num_epochs, 2);
  EXPECT_EQ(o.num_batches, 7);
  EXPECT_EQ(o.warmup, 0);
  EXPECT_EQ(o.num_workers, 3);
  EXPECT_TRUE(o.quick && o.amp && o.channels_last && o.list);
  EXPECT_EQ(o.amp_dtype, "fp16");
  EXPECT_EQ(o.resnet_image_size, 96);
  EXPECT_EQ(o.tests, (std::vector<std::string>{"train_", "infer_resnet18"}));
}

TEST(TorchWorkerOptions, RejectsBadInput) {
  for (const std::vector<std::string_view>& args : std::vector<std::vector<std::string_view>>{
           {"--bogus"},
           {"--device", "tpu"},
           {"--num-epochs", "0"},
           {"--num-batches", "12x"},
           {"--num-workers", "-1"},
           {"--gpu"},
           {"--amp-dtype", "fp8"},
           {"--quick=yes"},
           {"--resnet-image-size", "16"},
           {"--num-batches", "99999999999999999999"},
       }) {
    const ParsedOptions parsed = parse(args);
    ASSERT_TRUE(parsed.error) << args.front();
    EXPECT_NE(parsed.error->find("see --help"), std::string::npos) << *parsed.error;
  }
}

TEST(TorchWorkerOptions, DefaultsDependOnDeviceAndQuick) {
  const RunConfig cuda_full = resolve(Options{}, true);
  EXPECT_EQ(cuda_full.iterations(), 3 * 200);
  EXPECT_EQ(cuda_full.warmup, 5);
  EXPECT_EQ(cuda_full.resnet_image_size, 224);

  Options quick;
  quick.quick = true;
  EXPECT_EQ(resolve(quick, true).iterations(), 20);
  const RunConfig cpu_quick = resolve(quick, false);
  EXPECT_EQ(cpu_quick.iterations(), 5);
  EXPECT_EQ(cpu_quick.warmup, 2);
  EXPECT_EQ(cpu_quick.resnet_image_size, 64);

  quick.num_batches = 3;  // explicit values win over --quick
  quick.warmup = 0;
  quick.resnet_image_size = 128;
  const RunConfig explicit_values = resolve(quick, false);
  EXPECT_EQ(explicit_values.iterations(), 3);
  EXPECT_EQ(explicit_values.warmup, 0);
  EXPECT_EQ(explicit_values.resnet_image_size, 128);
}

TEST(TorchWorkerOptions, IterationsDoNotOverflow) {
  Options big;
  big.num_epochs = std::numeric_limits<int>::max();
  big.num_batches = 4;
  EXPECT_EQ(resolve(big, true).iterations(), std::int64_t{std::numeric_limits<int>::max()} * 4);
}

TEST(TorchWorkerSuite, IsTheSeedsTwelveTestsInOrder) {
  const std::vector<TestSpec> suite = seed_suite();
  std::vector<std::string> names;
  for (const TestSpec& spec : suite) names.push_back(spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "train_simple_cnn_bs16", "train_simple_cnn_bs32", "train_simple_cnn_bs64",
                       "train_resnet18_bs8", "train_resnet18_bs16", "train_resnet18_bs32",
                       "infer_simple_cnn_bs16", "infer_simple_cnn_bs32", "infer_simple_cnn_bs64",
                       "infer_resnet18_bs8", "infer_resnet18_bs16", "infer_resnet18_bs32"}));
  EXPECT_EQ(workload_name(suite.front().workload), "training");
  EXPECT_EQ(workload_name(suite.back().workload), "inference");
  EXPECT_EQ(model_name(suite.back().model), "resnet18");
}

TEST(TorchWorkerSuite, SelectsByPrefix) {
  EXPECT_TRUE(selected("train_resnet18_bs8", {}));
  EXPECT_TRUE(selected("train_resnet18_bs8", {"infer_", "train_res"}));
  EXPECT_FALSE(selected("train_resnet18_bs8", {"infer_", "resnet18"}));
  EXPECT_FALSE(selected("train_resnet18_bs8", {"train_resnet18_bs8_and_more"}));
}

TEST(TorchWorkerJsonLine, EscapesAndWritesNullsForMissingValues) {
  const std::string line = JsonLine()
                               .field("type", "result")
                               .field("message", "a \"quoted\"\\ line\nand a\ttab\x01")
                               .field("count", 3)
                               .field("ratio", 0.25)
                               .field("nan", std::nan(""))
                               .field("inf", std::numeric_limits<double>::infinity())
                               .field("absent", std::optional<int>())
                               .field("present", std::optional<std::string>("x"))
                               .field("ok", false)
                               .raw_field("list", "[1,2]")
                               .str();
  EXPECT_EQ(line,
            R"({"type":"result","message":"a \"quoted\"\\ line\nand a\ttab\u0001","count":3,"ratio":0.25,)"
            R"("nan":null,"inf":null,"absent":null,"present":"x","ok":false,"list":[1,2]})");
}

}  // namespace
}  // namespace gpuwatch::bench_torch
