#include "analysis/job_report.h"

#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "render/job_report.h"
#include "run_data_util.h"

namespace gpuwatch {
namespace {

using namespace run_data_test;

// A node's run made by hand: its mean utilization and duration.
JobRun node_run(const std::string& host, int rank, double util, double duration_s = 100,
                std::optional<double> steps_per_s = std::nullopt) {
  JobRun r;
  r.run.id = fmt::format("{:012x}", rank + 1);
  r.run.host = host;
  r.run.job.id = "77";
  r.run.job.rank = rank;
  r.run.start_wall_ns = 1'700'000'000 * kSec;
  r.values[static_cast<std::size_t>(GroupColumn::DurationS)] = duration_s;
  r.values[static_cast<std::size_t>(GroupColumn::GpuUtilPercent)] = util;
  r.values[static_cast<std::size_t>(GroupColumn::EnergyJoules)] = 1000;
  r.gpus.push_back({0, "H100", util, 1e9});
  r.steps_per_s = steps_per_s;
  return r;
}

TEST(JobReport, CvOfTheNodesAndTheLeastBusyNodeBeyondTheGoodBand) {
  // Node means 90, 90 and 60: mean 80, population std 14.14, CV 17.7 % (fair).
  const JobReport j = build_job_report(
      "77", {node_run("node-c", 2, 60), node_run("node-a", 0, 90), node_run("node-b", 1, 90)});
  ASSERT_EQ(j.nodes.size(), 3u);
  EXPECT_EQ(j.nodes[0].host, "node-a");  // by host name
  ASSERT_TRUE(j.node_balance);
  EXPECT_NEAR(j.node_balance->cv_percent, std::sqrt(200.0) / 80 * 100, 1e-9);
  EXPECT_EQ(j.node_balance->band, BalanceBand::Fair);
  ASSERT_TRUE(j.straggler);
  EXPECT_EQ(j.nodes[j.straggler->node].host, "node-c");
  EXPECT_EQ(j.straggler->rule, StragglerRule::Utilization);
  EXPECT_DOUBLE_EQ(j.straggler->value, 60);
  EXPECT_DOUBLE_EQ(j.straggler->others_mean, 90);
  EXPECT_NE(j.straggler_reason.find("utilization: node-c's GPUs were the least busy"), std::string::npos);
  EXPECT_EQ(j.gpus, 3u);
  EXPECT_DOUBLE_EQ(*j.energy_joules, 3000);
}

TEST(JobReport, NoStragglerWithinTheGoodBand) {
  // 90 and 85: CV 2.9 %.
  const JobReport j = build_job_report("77", {node_run("a", 0, 90), node_run("b", 1, 85)});
  EXPECT_EQ(j.node_balance->band, BalanceBand::Excellent);
  EXPECT_FALSE(j.straggler);
  EXPECT_NE(j.straggler_reason.find("within the 'good' band"), std::string::npos);
}

TEST(JobReport, StepRatesNameTheSlowestNodeWhenTheyDiffer) {
  // Utilization alone would name b; the steps say c is slowest.
  const JobReport j = build_job_report("77", {node_run("a", 0, 90, 100, 10.0), node_run("b", 1, 50, 100, 9.9),
                                              node_run("c", 2, 90, 100, 8.0)});
  ASSERT_TRUE(j.straggler);
  EXPECT_EQ(j.nodes[j.straggler->node].host, "c");
  EXPECT_EQ(j.straggler->rule, StragglerRule::StepRate);
  EXPECT_DOUBLE_EQ(j.straggler->others_mean, 9.95);
  EXPECT_NE(j.straggler_reason.find("step rate: c logged the fewest steps per second"), std::string::npos);
}

TEST(JobReport, LockstepRatesFallBackToUtilization) {
  const JobReport j = build_job_report("77", {node_run("a", 0, 90, 100, 10.0), node_run("b", 1, 40, 100, 9.8)});
  ASSERT_TRUE(j.straggler);
  EXPECT_EQ(j.nodes[j.straggler->node].host, "b");
  EXPECT_EQ(j.straggler->rule, StragglerRule::Utilization);
  EXPECT_NE(j.straggler_reason.find("agree within 2.0 %"), std::string::npos) << j.straggler_reason;
}

TEST(JobReport, ANodeWithSeveralRunsWeighsThemByDuration) {
  // Two ranks on node a: 80 % for 300 s and 40 % for 100 s: 70 %.
  const JobReport j = build_job_report(
      "77", {node_run("a", 0, 80, 300, 5.0), node_run("a", 1, 40, 100, 4.0), node_run("b", 2, 70, 400)});
  ASSERT_EQ(j.nodes.size(), 2u);
  EXPECT_DOUBLE_EQ(*j.nodes[0].util_mean, 70);
  EXPECT_EQ(j.nodes[0].runs.size(), 2u);
  EXPECT_EQ(j.nodes[0].gpus, 2u);
  EXPECT_DOUBLE_EQ(*j.nodes[0].steps_per_s, 4.0);  // its slowest run
  EXPECT_DOUBLE_EQ(j.node_balance->cv_percent, 0);
  EXPECT_FALSE(j.straggler);
  EXPECT_EQ(j.runs[1].run.job.rank, 1);  // by host, then rank
}

TEST(JobReport, OneNodeHasNoStraggler) {
  const JobReport j = build_job_report("77", {node_run("a", 0, 90)});
  EXPECT_FALSE(j.node_balance);
  EXPECT_FALSE(j.straggler);
  EXPECT_EQ(j.straggler_reason, "one node: no other node to hold back");
}

TEST(JobReport, JobRunFromSamplesAndStepRate) {
  RunData d = make_run("train", "aaaaaaaaaaaa");
  d.run.host = "node-a";
  set_device(d, 0, DeviceMetric::GpuUtilPercent, constant(11, 50));
  set_device(d, 1, DeviceMetric::GpuUtilPercent, constant(11, 100));
  for (int i = 0; i <= 10; i += 5) {
    d.events.push_back({{kStartMono + i * kSec, 0}, std::nullopt, "step", std::to_string(100 + 20 * i)});
  }
  const JobRun r = job_run(d);
  ASSERT_EQ(r.gpus.size(), 2u);
  EXPECT_DOUBLE_EQ(*r.gpus[1].util_mean, 100);
  EXPECT_DOUBLE_EQ(*r.values[static_cast<std::size_t>(GroupColumn::GpuUtilPercent)], 75);
  EXPECT_DOUBLE_EQ(*r.steps_per_s, 20);
  EXPECT_EQ(step_rate({}), std::nullopt);
}

TEST(JobReport, JsonCarriesTheRuleAndTheBand) {
  const std::string json = render_job_report_json(
      build_job_report("77", {node_run("node-a", 0, 90), node_run("node-b", 1, 30)}));
  EXPECT_NE(json.find(R"("schema_version": 2)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("kind": "job")"), std::string::npos);
  EXPECT_NE(json.find(R"("band": "poor")"), std::string::npos);
  EXPECT_NE(json.find(R"("host": "node-b",
    "rule": "utilization")"), std::string::npos) << json;
  const std::string text = render_job_report_text(
      build_job_report("77", {node_run("node-a", 0, 90), node_run("node-b", 1, 30)}));
  EXPECT_NE(text.find("Straggler: node-b. Rule: utilization"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpuwatch
