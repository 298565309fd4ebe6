#include "analysis/segments.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

Event event(std::int64_t mono_s, std::string kind, std::string message) {
  Event e;
  e.time.mono_ns = mono_s * kSec;
  e.time.wall_ns = 1'700'000'000 * kSec + e.time.mono_ns;
  e.kind = std::move(kind);
  e.message = std::move(message);
  return e;
}

void expect_segment(const Segment& s, SegmentKind kind, const std::string& label, std::int64_t start_s,
                    std::int64_t end_s) {
  EXPECT_EQ(s.kind, kind);
  EXPECT_EQ(s.label, label);
  EXPECT_EQ(s.start_mono_ns, start_s * kSec);
  EXPECT_EQ(s.end_mono_ns, end_s * kSec);
}

TEST(SegmentsFromEvents, AnEmptyPhaseNameOnlyEndsThePhase) {
  // `with gpuwatch.phase("val"):` sends "val" on entry and "" on exit.
  const std::vector<Event> events{event(10, "phase", "train"), event(20, "phase", "val"), event(25, "phase", ""),
                                  event(30, "phase", "train")};
  const auto s = segments_from_events(events, 50 * kSec);
  ASSERT_EQ(s.size(), 3u);
  expect_segment(s[0], SegmentKind::Phase, "train", 10, 20);
  expect_segment(s[1], SegmentKind::Phase, "val", 20, 25);
  expect_segment(s[2], SegmentKind::Phase, "train", 30, 50);
}

TEST(SegmentsFromEvents, EachEventOpensASegmentClosedByTheNextOfItsKind) {
  // Phases train@10, val@20, train@30; epochs 0@10, 1@25; a signal in between.
  // Run ends at 50 s: the last phase and the last epoch end there. Segments
  // come out in the order their events arrived.
  const std::vector<Event> events{event(10, "phase", "train"), event(10, "epoch", "0"),
                                  event(15, "signal", "SIGUSR1"), event(20, "phase", "val"),
                                  event(25, "epoch", "1"),        event(30, "phase", "train")};
  const auto s = segments_from_events(events, 50 * kSec);
  ASSERT_EQ(s.size(), 5u);
  expect_segment(s[0], SegmentKind::Phase, "train", 10, 20);
  expect_segment(s[1], SegmentKind::Epoch, "0", 10, 25);
  expect_segment(s[2], SegmentKind::Phase, "val", 20, 30);
  expect_segment(s[3], SegmentKind::Epoch, "1", 25, 50);
  expect_segment(s[4], SegmentKind::Phase, "train", 30, 50);
}

TEST(SegmentsFromEvents, OtherKindsAreIgnored) {
  const std::vector<Event> events{event(1, "gpu_lost", "GPU 0"), event(2, "device_error", "xid 79"),
                                  event(3, "signal", "SIGTERM"), event(4, "note", "train")};
  EXPECT_TRUE(segments_from_events(events, 10 * kSec).empty());
}

TEST(SegmentsFromEvents, OtherKindsDoNotCloseASegment) {
  // A signal at 5 s between two phase events leaves train running to 8 s.
  const std::vector<Event> events{event(2, "phase", "train"), event(5, "signal", "val"), event(8, "phase", "val")};
  const auto s = segments_from_events(events, 10 * kSec);
  ASSERT_EQ(s.size(), 2u);
  expect_segment(s[0], SegmentKind::Phase, "train", 2, 8);
  expect_segment(s[1], SegmentKind::Phase, "val", 8, 10);
}

TEST(SegmentsFromEvents, NoEventsNoSegments) {
  const std::vector<Event> none;
  EXPECT_TRUE(segments_from_events(none, 10 * kSec).empty());
}

TEST(SegmentsFromEvents, EventAtTheRunEndOpensNoEmptySegment) {
  // "done" arrives exactly at the end: it would last 0 s.
  const std::vector<Event> events{event(0, "phase", "train"), event(10, "phase", "done")};
  const auto s = segments_from_events(events, 10 * kSec);
  ASSERT_EQ(s.size(), 1u);
  expect_segment(s[0], SegmentKind::Phase, "train", 0, 10);
}

// A run of one device, index 3, sampled at 0..9 s.
RunData one_device_run(const std::vector<double>& util) {
  RunData data;
  DeviceSeries d;
  d.info.index = 3;
  for (std::size_t i = 0; i < util.size(); ++i) {
    d.mono_ns.push_back(static_cast<std::int64_t>(i) * kSec);
    d.wall_ns.push_back(1'700'000'000 * kSec + static_cast<std::int64_t>(i) * kSec);
  }
  d.values.assign(kDeviceMetricCount, std::vector<double>(util.size(), kNaN));
  d.values[static_cast<std::size_t>(DeviceMetric::GpuUtilPercent)] = util;
  data.devices.push_back(std::move(d));
  return data;
}

TEST(SummarizeSegments, MeanUtilizationPerLabelOverAllItsSegments) {
  // train [0,3 s) util 80 at 0,1,2; val [3,5) util 20 at 3,4; train [5,8) util
  // 60 at 5,6,7; outside any phase (8, 9 s) util 0. Segments are half-open,
  // so the sample at a boundary belongs to the segment that starts there.
  // train: three samples at 80 and three at 60 -> 70 (both halves hold the
  // same time however the gap between them is weighted); val: 20.
  const RunData data = one_device_run({80, 80, 80, 20, 20, 60, 60, 60, 0, 0});
  const std::vector<Segment> segments{{SegmentKind::Phase, "train", 0, 3 * kSec},
                                      {SegmentKind::Epoch, "0", 0, 9 * kSec},
                                      {SegmentKind::Phase, "val", 3 * kSec, 5 * kSec},
                                      {SegmentKind::Phase, "train", 5 * kSec, 8 * kSec}};
  const auto stats = summarize_segments(data, segments, SegmentKind::Phase);
  ASSERT_EQ(stats.size(), 2u);  // the epoch is not a phase

  EXPECT_EQ(stats[0].label, "train");  // order of first appearance
  EXPECT_EQ(stats[0].kind, SegmentKind::Phase);
  EXPECT_EQ(stats[0].occurrences, 2u);
  EXPECT_DOUBLE_EQ(stats[0].duration_s, 6.0);  // 3 s + 3 s
  ASSERT_EQ(stats[0].devices.size(), 1u);
  EXPECT_EQ(stats[0].devices[0].device_index, 3);
  ASSERT_TRUE(stats[0].devices[0].util_percent);
  EXPECT_EQ(stats[0].devices[0].util_percent->count, 6u);
  EXPECT_DOUBLE_EQ(stats[0].devices[0].util_percent->mean, 70.0);
  EXPECT_DOUBLE_EQ(stats[0].devices[0].util_percent->min, 60.0);
  EXPECT_DOUBLE_EQ(stats[0].devices[0].util_percent->max, 80.0);
  // Columns never written are absent, not zero.
  EXPECT_FALSE(stats[0].devices[0].mem_used_bytes);
  EXPECT_FALSE(stats[0].devices[0].power_watts);

  EXPECT_EQ(stats[1].label, "val");
  EXPECT_EQ(stats[1].occurrences, 1u);
  EXPECT_DOUBLE_EQ(stats[1].duration_s, 2.0);
  ASSERT_EQ(stats[1].devices.size(), 1u);
  ASSERT_TRUE(stats[1].devices[0].util_percent);
  EXPECT_EQ(stats[1].devices[0].util_percent->count, 2u);
  EXPECT_DOUBLE_EQ(stats[1].devices[0].util_percent->mean, 20.0);
}

TEST(SummarizeSegments, OtherKindIsSummarizedOnItsOwn) {
  const RunData data = one_device_run({80, 80, 80, 20, 20, 60, 60, 60, 0, 0});
  const std::vector<Segment> segments{{SegmentKind::Phase, "train", 0, 3 * kSec},
                                      {SegmentKind::Epoch, "0", 0, 5 * kSec},
                                      {SegmentKind::Epoch, "1", 5 * kSec, 10 * kSec}};
  const auto stats = summarize_segments(data, segments, SegmentKind::Epoch);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].label, "0");
  EXPECT_EQ(stats[1].label, "1");
  // Epoch 0: 80,80,80,20,20 at 0..4 s, weights 0.5,1,1,1,0.5 (4 s):
  // (80*2.5 + 20*1.5)/4 = 57.5.
  ASSERT_TRUE(stats[0].devices[0].util_percent);
  EXPECT_DOUBLE_EQ(stats[0].devices[0].util_percent->mean, 57.5);
  // Epoch 1: 60,60,60,0,0 at 5..9 s, same weights: (60*2.5)/4 = 37.5.
  ASSERT_TRUE(stats[1].devices[0].util_percent);
  EXPECT_DOUBLE_EQ(stats[1].devices[0].util_percent->mean, 37.5);
}

TEST(SummarizeSegments, NoSegmentsOfTheKindGiveNoRows) {
  const RunData data = one_device_run({80, 80, 80});
  const std::vector<Segment> segments{{SegmentKind::Phase, "train", 0, 3 * kSec}};
  EXPECT_TRUE(summarize_segments(data, segments, SegmentKind::Epoch).empty());
}

TEST(SummarizeSegments, SegmentWithoutSamplesHasNoSummary) {
  // A phase after the last sample: the row exists, its statistics are absent.
  const RunData data = one_device_run({80, 80, 80});
  const std::vector<Segment> segments{{SegmentKind::Phase, "eval", 20 * kSec, 30 * kSec}};
  const auto stats = summarize_segments(data, segments, SegmentKind::Phase);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_DOUBLE_EQ(stats[0].duration_s, 10.0);
  ASSERT_EQ(stats[0].devices.size(), 1u);
  EXPECT_FALSE(stats[0].devices[0].util_percent);
}

// Issue 9, item 3: a pattern that matches every line of epoch 3 says
// "epoch 3" many times; that is one epoch, not one per line.
TEST(SegmentsFromEvents, TheSameLabelSaidAgainContinuesItsSegment) {
  std::vector<Event> events;
  for (int e = 1; e <= 3; ++e) {
    for (int line = 0; line < 4; ++line) events.push_back(event(10 * e + line, "epoch", std::to_string(e)));
  }
  events.push_back(event(35, "phase", "train"));
  events.push_back(event(36, "phase", "train"));
  const auto s = segments_from_events(events, 50 * kSec);
  ASSERT_EQ(s.size(), 4u);
  expect_segment(s[0], SegmentKind::Epoch, "1", 10, 20);
  expect_segment(s[1], SegmentKind::Epoch, "2", 20, 30);
  expect_segment(s[2], SegmentKind::Epoch, "3", 30, 50);
  expect_segment(s[3], SegmentKind::Phase, "train", 35, 50);
  const auto rows = segment_rows(s, SegmentKind::Epoch);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].occurrences, 1u);
}

// Issue 9, item 7: beyond a few dozen labels, the middle ones share a row.
TEST(SummarizeSegments, ManyEpochsKeepTheirEdgesAndShareOneRowInBetween) {
  // 100 epochs of 0.1 s over 10 s sampled once a second: epoch k starts at k/10 s.
  std::vector<double> util;
  for (int i = 0; i < 10; ++i) util.push_back(10.0 * i);
  const RunData data = one_device_run(util);
  std::vector<Segment> segments;
  for (std::int64_t k = 0; k < 100; ++k) {
    segments.push_back({SegmentKind::Epoch, std::to_string(k), k * kSec / 10, (k + 1) * kSec / 10});
  }
  segments.push_back({SegmentKind::Epoch, "0", 10 * kSec, 11 * kSec});  // epoch 0 again, later
  const auto rows = summarize_segments(data, segments, SegmentKind::Epoch);
  ASSERT_EQ(rows.size(), kMaxSegmentRows);
  EXPECT_EQ(rows[0].label, "0");
  EXPECT_EQ(rows[0].occurrences, 2u);
  EXPECT_EQ(rows[0].merged_labels, 0u);
  EXPECT_EQ(rows[kSegmentEdgeRows - 1].label, std::to_string(kSegmentEdgeRows - 1));
  const SegmentStats& middle = rows[kSegmentEdgeRows];
  EXPECT_EQ(middle.label, "20..79");
  EXPECT_EQ(middle.merged_labels, 60u);
  EXPECT_EQ(middle.occurrences, 60u);
  EXPECT_NEAR(middle.duration_s, 6.0, 1e-9);
  // Epochs 20..79 cover [2 s, 8 s): the samples at 2..7 s, util 20..70.
  ASSERT_EQ(middle.devices.size(), 1u);
  ASSERT_TRUE(middle.devices[0].util_percent);
  EXPECT_EQ(middle.devices[0].util_percent->count, 6u);
  EXPECT_DOUBLE_EQ(middle.devices[0].util_percent->min, 20.0);
  EXPECT_DOUBLE_EQ(middle.devices[0].util_percent->max, 70.0);
  EXPECT_EQ(rows[kSegmentEdgeRows + 1].label, "80");
  EXPECT_EQ(rows.back().label, "99");
  EXPECT_EQ(rows.back().merged_labels, 0u);
  // The sample at 9 s lies in epoch 90.
  ASSERT_TRUE(rows[kSegmentEdgeRows + 11].devices[0].util_percent);
  EXPECT_EQ(rows[kSegmentEdgeRows + 11].label, "90");
  EXPECT_DOUBLE_EQ(rows[kSegmentEdgeRows + 11].devices[0].util_percent->mean, 90.0);
}

TEST(SummarizeSegments, AsManyLabelsAsRowsAreNotMerged) {
  const RunData data = one_device_run({1, 2, 3});
  std::vector<Segment> segments;
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(kMaxSegmentRows); ++k) {
    segments.push_back({SegmentKind::Phase, "p" + std::to_string(k), k * kSec, (k + 1) * kSec});
  }
  const auto rows = summarize_segments(data, segments, SegmentKind::Phase);
  ASSERT_EQ(rows.size(), kMaxSegmentRows);
  for (const SegmentStats& r : rows) EXPECT_EQ(r.merged_labels, 0u);
  EXPECT_EQ(rows.back().label, "p" + std::to_string(kMaxSegmentRows - 1));
}

}  // namespace
}  // namespace gpuwatch
