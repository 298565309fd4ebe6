#include "workers/cuda/cli.h"

#include <gtest/gtest.h>

namespace gpuwatch::bench_cuda {
namespace {

TEST(CudaWorkerCli, DefaultsRunEveryTestOnEveryGpu) {
  const ParsedArgs parsed = parse_args({});
  EXPECT_EQ(parsed.action, Action::run);
  EXPECT_FALSE(parsed.options.quick);
  EXPECT_FALSE(parsed.options.gpus.has_value());
  EXPECT_TRUE(parsed.options.tests.empty());
  EXPECT_EQ(matmul_size(parsed.options), 8192);
  EXPECT_DOUBLE_EQ(target_seconds(parsed.options), 1.0);
}

TEST(CudaWorkerCli, QuickShrinksMatmulsAndTime) {
  const ParsedArgs parsed = parse_args({"--quick"});
  ASSERT_EQ(parsed.action, Action::run);
  EXPECT_EQ(matmul_size(parsed.options), 4096);
  EXPECT_DOUBLE_EQ(target_seconds(parsed.options), 0.3);
}

TEST(CudaWorkerCli, GpusTakeAllOrDistinctIndicesInBothSpellings) {
  ParsedArgs parsed = parse_args({"--gpus", "2,0"});
  ASSERT_EQ(parsed.action, Action::run) << parsed.error;
  EXPECT_EQ(parsed.options.gpus, (std::vector<int>{2, 0}));
  parsed = parse_args({"--gpus=1"});
  ASSERT_EQ(parsed.action, Action::run) << parsed.error;
  EXPECT_EQ(parsed.options.gpus, (std::vector<int>{1}));
  parsed = parse_args({"--gpus", "0", "--gpus", "all"});
  ASSERT_EQ(parsed.action, Action::run) << parsed.error;
  EXPECT_FALSE(parsed.options.gpus.has_value());
}

TEST(CudaWorkerCli, BadGpuListsAreUsageErrors) {
  for (const char* bad : {"", "x", "-1", "0,", ",1", "1,1", "0.5", "1e3", "99999999999"}) {
    const ParsedArgs parsed = parse_args({"--gpus", bad});
    EXPECT_EQ(parsed.action, Action::usage_error) << bad;
    EXPECT_NE(parsed.error.find("--gpus"), std::string::npos) << parsed.error;
  }
}

TEST(CudaWorkerCli, UnknownFlagsAndMissingValuesAreUsageErrors) {
  EXPECT_EQ(parse_args({"--fast"}).action, Action::usage_error);
  EXPECT_EQ(parse_args({"quick"}).action, Action::usage_error);
  EXPECT_EQ(parse_args({"--quick=1"}).action, Action::usage_error);
  EXPECT_EQ(parse_args({"--gpus"}).action, Action::usage_error);
  EXPECT_EQ(parse_args({"--tests"}).action, Action::usage_error);
  EXPECT_EQ(parse_args({"--fast"}).error, "unknown argument '--fast'");
}

TEST(CudaWorkerCli, HelpWinsAndListIsAnAction) {
  EXPECT_EQ(parse_args({"--gpus", "x", "--help"}).action, Action::usage_error);
  EXPECT_EQ(parse_args({"--help", "--gpus", "x"}).action, Action::help);
  EXPECT_EQ(parse_args({"-h"}).action, Action::help);
  EXPECT_EQ(parse_args({"--list", "--quick"}).action, Action::list);
  EXPECT_NE(usage_text().find("--tests"), std::string::npos);
}

TEST(CudaWorkerCli, TestsMustNameSomeTest) {
  for (const char* good : {"matmul", "membw", "h2d", "d2h", "launch", "p2p", "matmul_bf16",
                           "matmul_fp8_4096", "matmul_bf16_8192_all", "membw_copy", "p2p_0_1", "p",
                           "launch_sync"}) {
    EXPECT_EQ(parse_args({"--tests", good}).action, Action::run) << good;
  }
  for (const char* bad : {"", "gemm", "matmul_int8", "membw,", "p2px", "launch_sync2"}) {
    const ParsedArgs parsed = parse_args({"--tests", bad});
    EXPECT_EQ(parsed.action, Action::usage_error) << bad;
  }
}

TEST(CudaWorkerCli, FamilyKeywordsAndPrefixesSelect) {
  Options options;
  EXPECT_TRUE(test_selected(options, Family::launch, "launch_async"));  // no filter: all
  options.tests = {"h2d", "matmul_bf16"};
  EXPECT_TRUE(test_selected(options, Family::host_device, "h2d_pinned"));
  EXPECT_TRUE(test_selected(options, Family::host_device, "d2h_pageable"));
  EXPECT_TRUE(test_selected(options, Family::matmul, "matmul_bf16_8192"));
  EXPECT_TRUE(test_selected(options, Family::matmul, "matmul_bf16_8192_all"));
  EXPECT_FALSE(test_selected(options, Family::matmul, "matmul_fp16_8192"));
  EXPECT_FALSE(test_selected(options, Family::membw, "membw_read"));
  options.tests = {"p2p_1"};
  EXPECT_TRUE(test_selected(options, Family::p2p, "p2p_1_0"));
  EXPECT_FALSE(test_selected(options, Family::p2p, "p2p_0_1"));
}

TEST(CudaWorkerCli, ListFollowsQuickAndFilter) {
  Options options;
  const std::vector<std::string> all = listed_test_names(options);
  ASSERT_EQ(all.size(), 17u);
  EXPECT_EQ(all.front(), "matmul_fp32_8192");
  EXPECT_EQ(all[4], "matmul_fp8_8192");
  EXPECT_EQ(all[15], "matmul_bf16_8192_all");
  EXPECT_EQ(all.back(), "p2p_<from>_<to>");

  options.quick = true;
  options.tests = {"matmul_bf16", "launch"};
  EXPECT_EQ(listed_test_names(options),
            (std::vector<std::string>{"matmul_bf16_4096", "launch_async", "launch_sync", "matmul_bf16_4096_all"}));
  options.tests = {"p2p_0_1"};
  EXPECT_EQ(listed_test_names(options), (std::vector<std::string>{"p2p_<from>_<to>"}));
}

TEST(CudaWorkerCatalogue, NamesAreUniqueAndDescribed) {
  const std::vector<TestEntry> tests = per_gpu_tests(8192);
  for (std::size_t i = 0; i < tests.size(); ++i) {
    EXPECT_FALSE(test_description(tests[i].id, 8192).empty()) << tests[i].name;
    EXPECT_FALSE(test_model_name(tests[i].id).empty()) << tests[i].name;
    EXPECT_EQ(matmul_precision(tests[i].id).has_value(), tests[i].family == Family::matmul) << tests[i].name;
    for (std::size_t j = i + 1; j < tests.size(); ++j) EXPECT_NE(tests[i].name, tests[j].name);
  }
  EXPECT_EQ(all_gpus_test_name(4096), "matmul_bf16_4096_all");
  EXPECT_EQ(p2p_test_name(3, 1), "p2p_3_1");
  EXPECT_NE(p2p_test_description(3, 1).find("from GPU 3 to GPU 1"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::bench_cuda
