// The full text report's wording: numbers people read without tripping.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "render/report.h"
#include "render/table.h"
#include "render/units.h"
#include "report_test_util.h"

namespace gpuwatch {
namespace {

using report_test::report;

MemoryTrend trend(double span_s, double slope_bytes_per_hour, double growth_bytes) {
  MemoryTrend m;
  m.span_s = span_s;
  m.slope_bytes_per_hour = slope_bytes_per_hour;
  m.growth_bytes = growth_bytes;
  m.growth_percent_of_total = growth_bytes / (80 * kGiB) * 100;
  return m;
}

TEST(ReportText, NoMemoryRatePerHourOnAShortRun) {
  // 40 s: a rate per hour would extrapolate 90 times over.
  RunReport r = report(40);
  r.devices[0].memory = trend(40, 3.6e9, 40e6);
  const std::string text = render_report_text(r);
  EXPECT_EQ(text.find("MiB/h"), std::string::npos) << text;
  EXPECT_NE(text.find("last tenth vs first tenth +38.1 MiB"), std::string::npos) << text;
}

TEST(ReportText, MemoryRatePerHourFromFiveMinutes) {
  RunReport r = report(600);
  r.devices[0].memory = trend(kMemoryRateMinSpanS, 100 * kMiB, 10 * kMiB);
  const std::string text = render_report_text(r);
  EXPECT_NE(text.find("memory trend: +100.0 MiB/h; last tenth vs first tenth +10.0 MiB"), std::string::npos) << text;
}

TEST(ReportText, NoNegativeZeroAnywhere) {
  // A flat run whose tiny noise rounds to zero from below.
  RunReport r = report(600);
  r.devices[0].memory = trend(600, -1000, -1000);  // -0.001 MiB/h, -0.001 MiB, -0.000001 %
  r.devices[0].energy.counter_joules = 1000;
  r.devices[0].energy.integrated_counter_span_joules = 999.9999;  // -0.00001 %
  const std::string text = render_report_text(r);
  EXPECT_EQ(text.find("-0.0"), std::string::npos) << text;
  EXPECT_NE(text.find("memory trend: 0.0 MiB/h; last tenth vs first tenth 0.0 MiB (0.00 % of the device)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1000.0 J (0.0 %)"), std::string::npos) << text;
}

TEST(ReportText, NoTypicalPeriodFromTwoGaps) {
  // What the analysis gives for two gaps (20.4 s apart): no period. The
  // text must not invent one.
  RunReport r = report(120);
  IdleGapReport g;
  g.count = 2;
  g.total_s = 3;
  g.longest_s = 2;
  g.busy_span_s = 100;
  r.devices[0].idle_gaps = g;
  const std::string text = render_report_text(r);
  EXPECT_NE(text.find("idle gaps: 2 under 5 % utilization"), std::string::npos) << text;
  EXPECT_EQ(text.find("typically"), std::string::npos) << text;
}

TEST(ReportText, ModelParametersScaleToThousands) {
  RunReport r = report(60);
  r.training = TrainingSummary{};
  r.training->model_params = 2401;
  const std::string text = render_report_text(r);
  EXPECT_NE(text.find("model 2.4 k parameters"), std::string::npos) << text;
  EXPECT_EQ(text.find("0.0 M"), std::string::npos) << text;
}

TEST(ReportText, EventMessagesAreWholeAndFoldAtWords) {
  RunReport r = report(60);
  const std::string message =
      "stopped by --on-underuse kill: util.low GPU 0: utilization 3 % over 60 s with 21 idle gaps, the process "
      "tree busy at 100 % of a core";
  r.events.push_back(Event{Timestamp{0, r.run.start_wall_ns}, 0, "underuse", message});
  const std::string text = render_report_text(r);
  // Every word of the message is there, each whole.
  std::size_t from = 0;
  for (std::size_t pos = 0; pos <= message.size();) {
    const std::size_t space = std::min(message.find(' ', pos), message.size());
    const std::string word = message.substr(pos, space - pos);
    const std::size_t at = text.find(word, from);
    ASSERT_NE(at, std::string::npos) << word << "\n" << text;
    from = at + word.size();
    pos = space + 1;
  }
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    EXPECT_LE(display_width(std::string_view(text).substr(begin, end - begin)), 100u);
    begin = end + 1;
  }
}

// Issue 26: the recorder's own bookkeeping (which GPUs were the job's, the
// advisor's configuration, dropped annotations) is no event of the run for a
// reader; the JSON and report --full keep it.
TEST(ReportText, InternalEventsOnlyInJsonAndFull) {
  RunReport r = report(60);
  const std::int64_t t = r.run.start_wall_ns;
  r.events.push_back(Event{Timestamp{0, t}, std::nullopt, "job_gpus", "source=process_tree gpus=0,1"});
  r.events.push_back(Event{Timestamp{0, t + 1}, std::nullopt, "marks_dropped", "4900 marks not stored"});
  r.events.push_back(Event{Timestamp{0, t + 2}, std::nullopt, "advisor_config", "window_s = 2"});
  r.events.push_back(Event{Timestamp{0, t + 3}, std::nullopt, "mark", "checkpoint saved"});
  for (const OutputFormat format : {OutputFormat::text, OutputFormat::markdown}) {
    const std::string shown = render_report(r, format);
    EXPECT_NE(shown.find("checkpoint saved"), std::string::npos) << shown;
    for (const char* internal : {"job_gpus", "source=process_tree", "marks_dropped"}) {
      EXPECT_EQ(shown.find(internal), std::string::npos) << internal << "\n" << shown;
    }
    const std::string full = render_report(r, format, true);
    for (const char* internal : {"source=process_tree gpus=0,1", "marks_dropped"}) {
      EXPECT_NE(full.find(internal), std::string::npos) << internal << "\n" << full;
    }
  }
  const std::string json = render_report_json(r);
  EXPECT_NE(json.find("source=process_tree gpus=0,1"), std::string::npos);
  EXPECT_NE(json.find("\"marks_dropped\""), std::string::npos);
}

// Only internal events: no events table at all.
TEST(ReportText, NoEventsTableForInternalEventsAlone) {
  RunReport r = report(60);
  r.events.push_back(Event{Timestamp{0, r.run.start_wall_ns}, std::nullopt, "job_gpus", "source=process_tree gpus=0"});
  EXPECT_EQ(render_report_text(r).find("Events"), std::string::npos);
  EXPECT_NE(render_report_text(r, true).find("Events"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch
