// Issue 9, item 7: a run with 200,000 epochs or marks gives a report a
// person can read: tables summarize beyond a few dozen rows, events are kept
// per kind, and what was left out is counted.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "analysis/run_report.h"
#include "render/report.h"
#include "render/report_training.h"
#include "plot_test_util.h"

namespace gpuwatch {
namespace {

Event at(const RunData& data, std::int64_t offset_ns, std::string kind, std::string message) {
  Event e;
  e.time.mono_ns = data.run.start_mono_ns + offset_ns;
  e.time.wall_ns = data.run.start_wall_ns + offset_ns;
  e.kind = std::move(kind);
  e.message = std::move(message);
  return e;
}

RunData run_with(std::size_t epochs, std::size_t marks) {
  synthetic::SyntheticRun spec;
  spec.gpus = 1;
  spec.duration_s = 20;
  spec.hz = 10;
  RunData data = synthetic::make_run(spec);
  const std::int64_t span = 20'000'000'000;
  for (std::size_t k = 0; k < epochs; ++k) {
    data.events.push_back(at(data, span * static_cast<std::int64_t>(k) / static_cast<std::int64_t>(epochs), "epoch",
                             std::to_string(k)));
  }
  for (std::size_t k = 0; k < marks; ++k) {
    data.events.push_back(at(data, span * static_cast<std::int64_t>(k) / static_cast<std::int64_t>(marks), "mark",
                             "line " + std::to_string(k)));
  }
  data.events.push_back(at(data, span / 2, "gpu_lost", "the GPU stopped answering"));
  std::stable_sort(data.events.begin(), data.events.end(),
                   [](const Event& a, const Event& b) { return a.time.mono_ns < b.time.mono_ns; });
  return data;
}

// `word` not followed by a digit: "line 1" is not in "line 17".
bool has_word(const std::string& text, const std::string& word) {
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const std::size_t after = at + word.size();
    if (after == text.size() || text[after] < '0' || text[after] > '9') return true;
  }
  return false;
}

std::size_t lines_of(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST(ReportBounds, ManyEpochsAndMarksGiveABoundedReport) {
  const RunReport r = build_report(run_with(5000, 3000));
  EXPECT_EQ(r.epochs.size(), kMaxSegmentRows);
  ASSERT_TRUE(r.training);
  EXPECT_EQ(r.training->epochs, 5000u);
  EXPECT_EQ(r.training->marks, 3000u);
  // Per kind, first and last halves; the one lost GPU among them is kept.
  const auto count = [&](std::string_view kind) {
    return std::count_if(r.events.begin(), r.events.end(), [&](const Event& e) { return e.kind == kind; });
  };
  EXPECT_EQ(count("mark"), static_cast<long>(kEventsKeptPerKind));
  EXPECT_EQ(count("epoch"), static_cast<long>(kEventsKeptPerKind));
  EXPECT_EQ(count("gpu_lost"), 1);
  EXPECT_EQ(r.events_omitted.at("mark"), 2000u);
  EXPECT_EQ(r.events_omitted.at("epoch"), 4000u);
  EXPECT_EQ(r.events.front().message, "0");  // the first epoch, at the start

  const std::string text = render_report_text(r);
  EXPECT_LT(lines_of(text), 200u) << text;
  EXPECT_NE(text.find("4960 epochs 20..4979 are taken together in one row."), std::string::npos) << text;
  EXPECT_NE(text.find("Not listed: 1 gpu_lost, 2960 marks (report --format json lists up to 1000 of each kind)."),
            std::string::npos)
      << text;
  EXPECT_TRUE(has_word(text, "line 2999"));  // the last mark is shown
  EXPECT_TRUE(has_word(text, "line 0"));     // and the first
  EXPECT_FALSE(has_word(text, "line 1500"));

  std::string json = render_report_json(r);
  std::erase_if(json, [](char c) { return c == ' ' || c == '\n'; });
  EXPECT_NE(json.find(R"("events_omitted":{"epoch":4000,"mark":2000})"), std::string::npos);
  EXPECT_NE(json.find(R"("merged_labels":4960)"), std::string::npos);
}

TEST(ReportBounds, FewEventsAreAllListed) {
  const RunReport r = build_report(run_with(3, 5));
  EXPECT_EQ(r.epochs.size(), 3u);
  EXPECT_TRUE(r.events_omitted.empty());
  const std::string text = render_report_text(r);
  EXPECT_EQ(text.find("Not listed"), std::string::npos);
  EXPECT_EQ(text.find("taken together"), std::string::npos);
  for (int k = 0; k < 5; ++k) EXPECT_TRUE(has_word(text, "line " + std::to_string(k)));
}

}  // namespace
}  // namespace gpuwatch
