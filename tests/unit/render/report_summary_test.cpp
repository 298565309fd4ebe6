// record's short summary: bounded, the verdict first, the top problems.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "render/report.h"
#include "render/table.h"
#include "report_test_util.h"

namespace gpuwatch {
namespace {

using report_test::device;
using report_test::report;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = text.find('\n', pos);
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

Advisory advisory(std::string id, Severity severity, std::optional<int> gpu, std::string summary) {
  Advisory a;
  a.id = std::move(id);
  a.severity = severity;
  a.device_index = gpu;
  a.summary = std::move(summary);
  return a;
}

void expect_bounded(const std::string& text, std::size_t max_lines) {
  const auto lines = lines_of(text);
  EXPECT_LE(lines.size(), max_lines) << text;
  for (const std::string& l : lines) EXPECT_LE(display_width(l), kSummaryWidth) << l;
}

TEST(ReportSummary, AHealthyRunInAFewLines) {
  RunReport r = report(754);
  r.total_energy_joules = 512'300;
  const std::string text = render_report_summary(r, {});
  EXPECT_EQ(text,
            "Run 0123456789ab  train  exit 0 after 12m34s\n"
            "verdict: ok\n"
            "  GPU name                  utilization % mean        memory used peak power W mean\n"
            "  0   NVIDIA H100 80GB HBM3                 78 60.0 of 80.0 GiB (75 %)          412\n"
            "energy: 512.3 kJ (142.3 Wh)\n"
            "full report: gpuwatch report 0123456789ab\n");
}

TEST(ReportSummary, VerdictNamesTheTopProblemAndListsAtMostThree) {
  RunReport r = report(300);
  r.run.exit_code = 1;
  const std::vector<Advisory> advisories{
      advisory("memory.near_oom", Severity::Critical, 0, "memory 79.1 of 80.0 GiB"),
      advisory("util.input_bound", Severity::Warning, 0, "utilization 31 % over 60 s with 21 idle gaps"),
      advisory("memory.batch_could_grow", Severity::Info, 0, "memory 12 % used"),
      advisory("pcie.degraded", Severity::Warning, 0, "PCIe gen 3 x8 while busy")};
  const std::string text = render_report_summary(r, advisories);
  const auto lines = lines_of(text);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[1], "verdict: exit 1; critical: memory.near_oom GPU 0");
  EXPECT_NE(text.find("[critical] memory.near_oom GPU 0: memory 79.1 of 80.0 GiB\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[warning] util.input_bound GPU 0: utilization 31 %"), std::string::npos) << text;
  EXPECT_NE(text.find("[warning] pcie.degraded GPU 0"), std::string::npos) << text;  // warnings before info
  EXPECT_EQ(text.find("batch_could_grow"), std::string::npos) << text;
  EXPECT_NE(text.find("... and 1 more (the advisories in full: gpuwatch status 0123456789ab)"), std::string::npos);
  expect_bounded(text, 10);
}

TEST(ReportSummary, WholeRunFindingsFillInWhatNoAdvisorySays) {
  RunReport r = report(3600);
  ThrottleReport t;
  t.throttled_percent = 40;
  t.power_percent = 40;
  r.devices[0].throttle = t;
  MemoryTrend m;
  m.leak_suspected = true;
  m.growth_bytes = 6 * 1024.0 * 1024 * 1024;
  r.devices[0].memory = m;
  // The advisor already says "memory": the finding about memory is not repeated.
  const std::vector<Advisory> advisories{advisory("memory.leak", Severity::Warning, 0, "memory grows 2 MiB/min")};
  const std::string text = render_report_summary(r, advisories);
  EXPECT_NE(text.find("verdict: warning: memory.leak GPU 0"), std::string::npos) << text;
  EXPECT_NE(text.find("[warning] throttling GPU 0: throttled 40.0 % of the time"), std::string::npos) << text;
  EXPECT_EQ(text.find("memory growth GPU 0"), std::string::npos) << text;
}

TEST(ReportSummary, TheVerdictWordIsStatusesOkOrTheHighestSeverity) {
  // Issue 23: "healthy" here was "ok" in `status`; info is the word `status` gives too.
  const std::string text =
      render_report_summary(report(60), std::vector{advisory("memory.batch_could_grow", Severity::Info, 0, "12 %")});
  EXPECT_NE(text.find("verdict: info: memory.batch_could_grow GPU 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[info] memory.batch_could_grow GPU 0: 12 %"), std::string::npos) << text;
  // What only the whole-run report found is a note under "ok", not a verdict.
  RunReport r = report(3600);
  ThrottleReport t;
  t.throttled_percent = 40;
  t.power_percent = 40;
  r.devices[0].throttle = t;
  const std::string noted = render_report_summary(r, {});
  EXPECT_NE(noted.find("verdict: ok (notes below)\n"), std::string::npos) << noted;
  EXPECT_NE(noted.find("[warning] throttling GPU 0"), std::string::npos) << noted;
}

TEST(ReportSummary, EightGpusOneRowEach) {
  RunReport r = report(60);
  for (int i = 1; i < 8; ++i) r.devices.push_back(device(i, 70 + i, 40 * 1024.0 * 1024 * 1024, 300));
  const std::string text = render_report_summary(r, {});
  for (int i = 0; i < 8; ++i) {
    EXPECT_NE(text.find("\n  " + std::to_string(i) + "   NVIDIA"), std::string::npos) << text;
  }
  expect_bounded(text, 12);
}

TEST(ReportSummary, MoreThanEightGpusAreBoundedToTheLeastUsed) {
  RunReport r;
  r.run.id = "0123456789ab";
  r.run.status = RunStatus::Finished;
  r.run.exit_code = 0;
  for (int i = 0; i < 64; ++i) r.devices.push_back(device(i, i == 17 ? 5 : 90 - i % 7, 40 * 1024.0 * 1024 * 1024, 300));
  const std::string text = render_report_summary(r, {});
  expect_bounded(text, 10);
  EXPECT_NE(text.find("  all 64 GPUs (power: sum)"), std::string::npos) << text;
  EXPECT_NE(text.find("19200"), std::string::npos) << text;  // 64 x 300 W
  EXPECT_NE(text.find("\n  17  NVIDIA"), std::string::npos) << text;  // the idle one is shown
  EXPECT_NE(text.find("(the 3 least used of 64 GPUs"), std::string::npos) << text;
}

TEST(ReportSummary, LongAdvisoryTextIsShortenedAtAWord) {
  std::string summary;
  for (int i = 0; i < 40; ++i) summary += (i ? " word" : "word") + std::to_string(100 + i);
  const std::string text =
      render_report_summary(report(60), std::vector{advisory("util.low", Severity::Warning, 0, summary)});
  const auto lines = lines_of(text);
  const auto line = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("[warning]"); });
  ASSERT_NE(line, lines.end()) << text;
  EXPECT_LE(display_width(*line), kSummaryWidth);
  ASSERT_TRUE(line->ends_with("…")) << *line;
  const std::string kept = line->substr(0, line->size() - std::string("…").size());
  // The kept text ends with a whole word of the original.
  const std::string last_word = kept.substr(kept.rfind(' ') + 1);
  EXPECT_EQ(last_word.size(), 7u) << *line;
  EXPECT_NE(summary.find(last_word + " "), std::string::npos);
}

TEST(ReportSummary, OnATerminalLongAdvisoriesAreFoldedAtItsWidthNotCut) {
  // Issue 26: the end summary cut advisory lines at ~100 columns whatever the terminal's width.
  std::string summary;
  for (int i = 0; i < 40; ++i) summary += (i ? " word" : "word") + std::to_string(100 + i);
  const auto advisories = std::vector{advisory("util.low", Severity::Warning, 0, summary)};
  for (const std::size_t columns : {std::size_t{60}, std::size_t{80}, std::size_t{200}}) {
    const std::string text = render_report_summary(report(60), advisories, columns);
    EXPECT_EQ(text.find("…"), std::string::npos) << text;
    for (int i = 0; i < 40; ++i) EXPECT_NE(text.find("word" + std::to_string(100 + i)), std::string::npos) << text;
    // Every line fits but the GPU table's, which keeps its columns whole.
    std::vector<std::string> table;
    for (const std::string& l : lines_of(render_report_summary(report(60), advisories))) {
      if (l.starts_with("  ") && l[2] != ' ') table.push_back(l);
    }
    ASSERT_FALSE(table.empty());
    for (const std::string& l : lines_of(text)) {
      if (std::find(table.begin(), table.end(), l) == table.end()) {
        EXPECT_LE(display_width(l), columns) << l;
      }
    }
    for (const std::string& l : table) EXPECT_NE(text.find(l), std::string::npos) << text;
    // The advisory's continuation lines are indented under it.
    EXPECT_NE(text.find("\n    word1"), std::string::npos) << text;
  }
}

TEST(ReportSummary, NoGpuSaysSo) {
  RunReport r = report(5);
  r.devices.clear();
  const std::string text = render_report_summary(r, {});
  EXPECT_NE(text.find("no GPU was recorded"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpuwatch
