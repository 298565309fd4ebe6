// The advisor's rules that need SM-level counters (NVIDIA GPM):
// util.launch_bound and util.tensor_idle. The numbers are the H200's
// (docs/verified.md, 2026-11-27 11:35): back-to-back 64x64 matmuls read
// 20-32 % utilization at 0.35-0.53 % SM active; an 8192^2 bf16 matmul
// 96.7 % SM active with tensor active 93.9 %.
#include <gtest/gtest.h>

#include "advisor_test_util.h"
#include "analysis/advisor/underuse_rules.h"

namespace gpuwatch {
namespace {

using namespace advisor_test;

Window gpm_window(double util, double sm_active, double tensor = 0, double fp32 = 0) {
  Window w;
  w.host(HostMetric::CpuPercent, flat(6));
  w.host(HostMetric::TreeCpuPercent, flat(12));
  w.gpu(0, flat(util), flat(40 * kGiB));
  w.set(0, DeviceMetric::SmActivePercent, flat(sm_active));
  w.set(0, DeviceMetric::SmOccupancyPercent, flat(sm_active / 20));
  w.set(0, DeviceMetric::TensorActivePercent, flat(tensor));
  w.set(0, DeviceMetric::Fp32ActivePercent, flat(fp32));
  return w;
}

TEST(AdvisorKernels, SmallKernelsBackToBackAreLaunchBound) {
  const auto a = advise_on(gpm_window(26, 0.45).data);
  const Advisory* lb = find(a, "util.launch_bound");
  ASSERT_TRUE(lb) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(lb->severity, Severity::Warning);
  EXPECT_DOUBLE_EQ(evidence(*lb, "sm_active_mean_percent")->value, 0.45);
  EXPECT_NE(lb->summary.find("launch-bound"), std::string::npos) << lb->summary;
  // util.low would say "cause unknown": the cause is known.
  EXPECT_FALSE(find(a, "util.low"));
}

// It suppresses util.low, so below util_low_percent it must stop the job
// as util.low would on a GPU without GPM counters.
TEST(AdvisorKernels, LaunchBoundIsUnderuseWhereUtilLowWouldBe) {
  const auto low = advise_on(gpm_window(26, 0.45).data);
  const Advisory* lb = find(low, "util.launch_bound");
  ASSERT_TRUE(lb) << ::testing::PrintToString(ids(low));
  EXPECT_TRUE(lb->underuse);
  EXPECT_TRUE(UnderuseRules().acts_on(*lb));  // the default util.*
  EXPECT_TRUE(UnderuseRules::parse("util.launch_bound").acts_on(*lb));

  for (const double util : {30.0, 100.0}) {  // util_low_percent is 30: at or above it, advice only
    const auto busy = advise_on(gpm_window(util, 2).data);
    const Advisory* advice = find(busy, "util.launch_bound");
    ASSERT_TRUE(advice) << util;
    EXPECT_FALSE(advice->underuse) << util;
    EXPECT_FALSE(UnderuseRules::parse("*").acts_on(*advice)) << util;
  }
  AdvisorConfig lower;
  lower.util_low_percent = 20;
  const auto a = advise_on(gpm_window(26, 0.45).data, lower);
  ASSERT_TRUE(find(a, "util.launch_bound"));
  EXPECT_FALSE(find(a, "util.launch_bound")->underuse);
}

TEST(AdvisorKernels, ABusyMatmulIsNeitherLaunchBoundNorTensorIdle) {
  const auto a = advise_on(gpm_window(100, 96.7, 93.9, 0).data);
  EXPECT_FALSE(find(a, "util.launch_bound"));
  EXPECT_FALSE(find(a, "util.tensor_idle"));
}

TEST(AdvisorKernels, LaunchBoundNeedsSmActivityAndUtilization) {
  Window no_gpm;
  no_gpm.gpu(0, flat(26), flat(40 * kGiB));
  EXPECT_FALSE(find(advise_on(no_gpm.data), "util.launch_bound"));   // no SM counters: cannot tell
  EXPECT_FALSE(find(advise_on(gpm_window(3, 0.1).data), "util.launch_bound"));   // idle, not launch-bound
  EXPECT_FALSE(find(advise_on(gpm_window(60, 20).data), "util.launch_bound"));   // a third of it: not
  EXPECT_TRUE(find(advise_on(gpm_window(100, 20).data), "util.launch_bound"));   // a fifth of it
  AdvisorConfig strict;
  strict.launch_bound_sm_share_percent = 10;
  EXPECT_FALSE(find(advise_on(gpm_window(100, 20).data, strict), "util.launch_bound"));
  EXPECT_FALSE(find(advise_on(gpm_window(26, 0.45).data, {}, 30), "util.launch_bound"));  // warming up
}

TEST(AdvisorKernels, Fp32MathWithIdleTensorCores) {
  const auto a = advise_on(gpm_window(100, 90, 0.2, 45).data);
  const Advisory* idle = find(a, "util.tensor_idle");
  ASSERT_TRUE(idle) << ::testing::PrintToString(ids(a));
  EXPECT_EQ(idle->severity, Severity::Info);
  EXPECT_NE(idle->suggestion.find("bf16"), std::string::npos);
  EXPECT_DOUBLE_EQ(evidence(*idle, "fp32_active_mean_percent")->value, 45);
  // Memory-bound work (FP32 pipes quiet) or tensor cores in use: nothing to say.
  EXPECT_FALSE(find(advise_on(gpm_window(100, 90, 0.2, 2).data), "util.tensor_idle"));
  EXPECT_FALSE(find(advise_on(gpm_window(100, 90, 30, 45).data), "util.tensor_idle"));
}

}  // namespace
}  // namespace gpuwatch
