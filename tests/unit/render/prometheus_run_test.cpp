#include "render/prometheus/prometheus_run.h"

#include <gtest/gtest.h>

#include <string>

#include "render/prometheus/prometheus_text.h"

namespace gpuwatch {
namespace {

// A run on GPUs 0 and 2 of three (GPU 1 is another job's), at epoch "3/10".
RunStatusReport recording_run() {
  RunStatusReport r;
  r.run.id = "0123456789ab";
  r.run.name = "bert \"base\"";
  r.live = true;
  r.age_s = 125.5;
  for (int i = 0; i < 3; ++i) {
    GpuStatus g;
    g.index = i;
    g.job = i != 1;
    r.gpus.push_back(g);
  }
  r.progress_now.step = 4200;
  r.progress_now.epoch = "3/10";
  r.progress_now.loss = 0.25;
  r.steps_per_second = 12.5;
  Advisory low;
  low.id = "util.low";
  low.severity = Severity::Warning;
  low.device_index = 2;
  Advisory balance;
  balance.id = "balance.imbalance";
  balance.severity = Severity::Warning;
  r.advisories = {low, balance};
  return r;
}

constexpr std::string_view kLabels = R"(run_id="0123456789ab",name="bert \"base\"",hostname="node-1")";

bool has_line(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(PrometheusRun, InfoGpusProgressAndAdvisories) {
  std::string out;
  append_run_families(out, recording_run(), "node-1");
  const std::string l(kLabels);
  EXPECT_TRUE(has_line(out, "gpuwatch_run_info{" + l + "} 1")) << out;
  EXPECT_TRUE(has_line(out, "gpuwatch_run_gpu{" + l + ",gpu=\"0\"} 1")) << out;
  EXPECT_TRUE(has_line(out, "gpuwatch_run_gpu{" + l + ",gpu=\"2\"} 1")) << out;
  EXPECT_FALSE(has_line(out, "gpuwatch_run_gpu{" + l + ",gpu=\"1\"} 1")) << "another job's GPU";
  EXPECT_TRUE(has_line(out, "gpuwatch_run_elapsed_seconds{" + l + "} 125.5")) << out;
  EXPECT_TRUE(has_line(out, "gpuwatch_run_step{" + l + "} 4200")) << out;
  EXPECT_TRUE(has_line(out, "gpuwatch_run_epoch{" + l + "} 3")) << out;
  EXPECT_TRUE(has_line(out, "gpuwatch_run_loss{" + l + "} 0.25")) << out;
  EXPECT_TRUE(has_line(out, "gpuwatch_run_steps_per_second{" + l + "} 12.5")) << out;
  EXPECT_TRUE(has_line(out, "gpuwatch_run_advisories{" + l + ",severity=\"warning\"} 2")) << out;
  EXPECT_TRUE(has_line(out, "gpuwatch_run_advisories{" + l + ",severity=\"critical\"} 0")) << out;
  EXPECT_TRUE(has_line(out, "gpuwatch_run_advisory{" + l + ",id=\"util.low\",severity=\"warning\",gpu=\"2\"} 1"));
  EXPECT_TRUE(
      has_line(out, "gpuwatch_run_advisory{" + l + ",id=\"balance.imbalance\",severity=\"warning\",gpu=\"\"} 1"));
  EXPECT_EQ(out.find("# TYPE gpuwatch_run_advisory gauge"), out.rfind("# TYPE gpuwatch_run_advisory gauge"));
}

TEST(PrometheusRun, UnknownProgressAndNoAdvisoriesAreLeftOutButCountsStay) {
  RunStatusReport r = recording_run();
  r.progress_now = {};
  r.progress_now.epoch = "warm-up";  // no leading number
  r.steps_per_second.reset();
  r.advisories.clear();
  std::string out;
  append_run_families(out, r, "node-1");
  for (const char* absent : {"gpuwatch_run_step", "gpuwatch_run_epoch", "gpuwatch_run_loss",
                             "gpuwatch_run_steps_per_second", "gpuwatch_run_advisory{"}) {
    EXPECT_EQ(out.find(absent), std::string::npos) << absent;
  }
  EXPECT_TRUE(has_line(out, "gpuwatch_run_advisories{" + std::string(kLabels) + ",severity=\"warning\"} 0")) << out;
}

TEST(PrometheusRun, EpochNumberIsTheLeadingNumber) {
  EXPECT_EQ(epoch_number("3"), 3.0);
  EXPECT_EQ(epoch_number("3/10"), 3.0);
  EXPECT_EQ(epoch_number(" 12 of 90"), 12.0);
  EXPECT_EQ(epoch_number("2.5"), 2.5);
  EXPECT_FALSE(epoch_number(""));
  EXPECT_FALSE(epoch_number("warm-up"));
  EXPECT_FALSE(epoch_number("nan"));
  EXPECT_FALSE(epoch_number("inf"));
}

TEST(PrometheusRun, TheExporterBodyEndsWithTheRunUnderEitherNaming) {
  PrometheusInput in;
  in.hostname = "node-1";
  in.version = "0.9.0";
  EXPECT_EQ(render_prometheus(in, PrometheusNames::Native).find("gpuwatch_run_"), std::string::npos);
  in.run = recording_run();
  for (const PrometheusNames names : {PrometheusNames::Native, PrometheusNames::DcgmCompat}) {
    EXPECT_TRUE(has_line(render_prometheus(in, names), "gpuwatch_run_info{" + std::string(kLabels) + "} 1"));
  }
}

}  // namespace
}  // namespace gpuwatch
